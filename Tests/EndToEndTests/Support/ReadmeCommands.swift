import Foundation

/// A command the README shows in a fenced code block, as `ReadmeTests` runs it.
///
/// The README's conventions, which these rules read:
/// - a block tagged `sh` holds commands, one a line (a line ending in `\` goes on on the next);
/// - a block tagged `console`, or with no tag, is a transcript: its lines starting with `$ `
///   are commands, the others what they print;
/// - any other block (`yaml`) holds no command;
/// - a command exits 0 unless its comment says `(exits N)`;
/// - a block whose tag is followed by `untested` (```` ```sh untested ````) holds commands no
///   test can run — they build or install oprun themselves, need a Slurm cluster, or a run in
///   progress in another terminal; `ReadmeTests.untested` lists each of them.
struct ReadmeCommand: CustomStringConvertible {
  /// As written, comment included (the shell ignores it).
  var text: String
  /// Where it starts in the README, from 1.
  var line: Int
  /// The status the README shows: 0 unless the comment says `(exits N)`.
  var expectedStatus: Int32
  /// In a block tagged `untested`.
  var untested: Bool

  var description: String { "README.md:\(line): \(text)" }

  /// Every command of `markdown`, in order.
  static func all(in markdown: String) -> [ReadmeCommand] {
    var commands: [ReadmeCommand] = []
    var block: (kind: BlockKind, untested: Bool)?
    var pending: (text: String, line: Int)?
    for (index, line) in markdown.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
      if line.hasPrefix("```") {
        if block == nil {
          let tags = line.dropFirst(3).split(separator: " ")
          block = (BlockKind(tag: tags.first.map(String.init) ?? ""), tags.dropFirst().contains("untested"))
        } else {
          block = nil
        }
        continue
      }
      guard let current = block, current.kind != .other else { continue }
      var text = String(line)
      if let started = pending {
        text = started.text + "\n" + text
      } else if current.kind == .transcript {
        guard text.hasPrefix("$ ") else { continue }
        text.removeFirst(2)
      } else if text.trimmingCharacters(in: .whitespaces).isEmpty || text.hasPrefix("#") {
        continue
      }
      if text.hasSuffix("\\") {
        pending = (text, pending?.line ?? index + 1)
        continue
      }
      commands.append(
        ReadmeCommand(
          text: text, line: pending?.line ?? index + 1, expectedStatus: expectedStatus(of: text),
          untested: current.untested))
      pending = nil
    }
    return commands
  }

  /// `(exits N)` in the command's comment.
  private static func expectedStatus(of text: String) -> Int32 {
    guard let comment = text.firstRange(of: " #").map({ text[$0.upperBound...] }),
      let match = comment.firstMatch(of: /\(exits ([0-9]+)\)/)
    else { return 0 }
    return Int32(match.1) ?? 0
  }

  private enum BlockKind {
    case commands, transcript, other

    init(tag: String) {
      switch tag {
      case "sh": self = .commands
      case "", "console": self = .transcript
      default: self = .other
      }
    }
  }
}
