import Foundation
import Testing

/// What a usage error and the help say, alike for every command: one error style, a help
/// that exists to turn to, and arguments named as the usage lines name them.
@Suite struct UsageMessageTests {
  /// Usage errors the argument parser finds, and ones oprun finds once parsed.
  static let mistakes: [[String]] = [
    ["--bogus"], ["-j"], ["-k", "--fail-fast"], ["check", "a", "b"], ["graph", "--format", "png"], ["report"],
    ["ctl"], ["ctl", "cancel"], ["ctl", "limit", "q", "x"], ["ctl", "priority", "bad", "veryhigh"],
    ["log", "a", "b", "c"],
  ]

  /// Each says `oprun: error:` first, as oprun's other errors do, and no line says `Error:`.
  @Test(arguments: mistakes)
  func aUsageErrorIsSaidAsOprunSaysEveryError(_ arguments: [String]) throws {
    let run = try runOprun(arguments, in: Scratch())
    #expect(run.status == 2)
    #expect(run.stderr.hasPrefix("oprun: error: "), "\(run.stderr)")
    #expect(!run.stderr.split(separator: "\n").contains { $0.hasPrefix("Error:") }, "\(run.stderr)")
  }

  /// The help a usage error points to is one that exists: `oprun --help` for a run (whose
  /// `run` no help mentions), the command's own for the others.
  @Test(arguments: mistakes)
  func theHelpAUsageErrorPointsToExists(_ arguments: [String]) throws {
    let run = try runOprun(arguments, in: Scratch())
    let pointer = try #require(run.stderr.firstMatch(of: /See '(oprun[^']*) --help' for more information/)?.1)
    #expect(!pointer.contains(" run"), "\(run.stderr)")
    let words = pointer.split(separator: " ").dropFirst().map(String.init)
    if arguments.first?.hasPrefix("-") == true { #expect(words.isEmpty, "a run's errors point to oprun --help") }
    let help = try runOprun(words + ["--help"], in: Scratch())
    #expect(help.status == 0 && help.stdout.hasPrefix("OVERVIEW: "), "\(pointer) --help: \(help.stderr)")
  }

  @Test func ctlWithoutACommandShowsCtlsUsage() throws {
    let run = try runOprun(["ctl"], in: Scratch())
    #expect(run.status == 2)
    #expect(
      run.stderr == """
        oprun: error: missing COMMAND: one of list, status, cancel, cancel-all, suspend, resume, limit, budget, \
        priority, pause, continue, watch
        Usage: oprun ctl [--pid PID | --manifest PATH] COMMAND [ARG...]
          See 'oprun ctl --help' for more information.

        """)
  }

  /// Every command's arguments and option values are named in capitals, as the usage lines
  /// name them, and a manifest's default is `./jobs.yaml` wherever a command takes one.
  @Test func everyArgumentIsNamedInCapitalsAndTheManifestsDefaultIsOneEverywhere() throws {
    let dump = try runOprun(["--experimental-dump-help"], in: Scratch())
    let tool = try #require(try JSONSerialization.jsonObject(with: Data(dump.stdout.utf8)) as? [String: Any])
    var lowercase: [String] = []
    var manifests: [String: String] = [:]
    func visit(_ command: [String: Any], path: String) {
      let name = command["commandName"] as? String ?? ""
      guard name != "help" else { return }
      for argument in command["arguments"] as? [[String: Any]] ?? [] {
        guard let kind = argument["kind"] as? String, kind != "flag", let value = argument["valueName"] as? String,
          !["help", "version"].contains(value)
        else { continue }
        if value != value.uppercased() { lowercase.append("\(path) <\(value)>") }
        if kind == "positional", value.hasPrefix("MANIFEST") {
          manifests[path] = argument["abstract"] as? String
        }
      }
      for sub in command["subcommands"] as? [[String: Any]] ?? [] {
        visit(sub, path: path + " " + (sub["commandName"] as? String ?? ""))
      }
    }
    visit(try #require(tool["command"] as? [String: Any]), path: "oprun")
    #expect(lowercase.isEmpty, "\(lowercase)")
    #expect(
      Set(manifests.keys) == [
        "oprun run", "oprun check", "oprun list", "oprun graph", "oprun log", "oprun cache stats", "oprun cache clean",
      ])
    for (command, help) in manifests {
      #expect(help.contains("(default: ./jobs.yaml)"), "\(command): \(help)")
    }
  }
}
