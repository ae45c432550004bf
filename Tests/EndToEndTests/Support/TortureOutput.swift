import Foundation

/// The torture jobs' lines as the human output shows them: each line a job wrote starts with
/// its tag `@JOB/aATTEMPT/cCOMMAND/STREAM:`, so every line can be traced to the stream that
/// wrote it, and the output says which job it belongs to (`job | ` in prefixed mode, the
/// `── job` block in grouped mode; raw mode says nothing, and the tag is all there is).
struct TortureOutput {
  /// Each stream's lines (the text after its tag), keyed by tag, in the order they appear.
  var streams: [String: [String]] = [:]
  /// Lines that are torn, unattributed or attributed to another job.
  var problems: [String] = []
  /// Lines cut inside their tag (a job killed in the middle of a write), with the job the
  /// output attributes them to when it says.
  var cutLines: [(job: String?, line: String)] = []

  init(text: String, mode: String, jobs: Set<String>) {
    var block: String?
    var inSummary = false
    for line in text.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
      // The summary's recap of failed jobs repeats their last lines, indented.
      if inSummary && line.hasPrefix("    ") { continue }
      if line.hasPrefix("── ") {
        let title = line.dropFirst(3)
        if jobs.contains(String(title)) {
          block = String(title)
        } else {
          block = nil
          inSummary = inSummary || title.contains(": ")
        }
        continue
      }
      let attributed: String?
      let content: Substring
      if let bar = line.range(of: " | "), jobs.contains(String(line[..<bar.lowerBound])) {
        attributed = String(line[..<bar.lowerBound])
        content = line[bar.upperBound...]
      } else if line.hasPrefix("@") {
        attributed = mode == "grouped" ? block : (mode == "raw" ? Self.job(ofTagged: line) : nil)
        content = line
      } else {
        if line.contains("@") || Self.isTagFragment(line) { problems.append("torn line: \(Self.excerpt(line))") }
        block = nil
        continue
      }
      guard let (tag, text) = Self.split(content), let owner = Self.job(ofTagged: content) else {
        if content.first == "@" && content.dropFirst().firstIndex(of: "@") == nil && !content.contains(":") {
          cutLines.append((attributed ?? Self.job(ofTagged: content), String(line)))
        } else {
          problems.append("torn line: \(Self.excerpt(line))")
        }
        continue
      }
      guard let attributed else {
        problems.append("line with no job: \(Self.excerpt(line))")
        continue
      }
      if attributed != owner { problems.append("\(owner)'s line shown as \(attributed)'s: \(Self.excerpt(line))") }
      streams[tag, default: []].append(text)
    }
  }

  /// A tagged line's tag and text, when it is exactly one tagged line.
  private static func split(_ line: Substring) -> (String, String)? {
    guard line.first == "@", line.dropFirst().firstIndex(of: "@") == nil, let colon = line.firstIndex(of: ":") else {
      return nil
    }
    let tag = line[..<colon]
    guard tag.split(separator: "/").count == 4 else { return nil }
    return (String(tag), String(line[line.index(after: colon)...]))
  }

  /// Whether `line` is the end of a tagged line whose start was shown elsewhere (`4/a1/c0/o:6742`).
  private static func isTagFragment(_ line: Substring) -> Bool {
    line.wholeMatch(of: /[^ ]*\/a[0-9]+\/c[0-9]+\/[oet]:.*/) != nil
      || line.wholeMatch(of: /[0-9]*\/c[0-9]+\/[oet]:.*/) != nil
  }

  private static func job(ofTagged line: Substring) -> String? {
    guard line.first == "@", let slash = line.firstIndex(of: "/") else { return nil }
    return String(line[line.index(after: line.startIndex)..<slash])
  }

  private static func excerpt(_ line: Substring) -> String {
    line.count > 120 ? String(line.prefix(120)) + "… (\(line.count) characters)" : String(line)
  }
}
