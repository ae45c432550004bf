import Foundation
import Testing

@testable import OprunCore

/// `make install` and `make uninstall` into a prefix of the test's own, and what they install:
/// the binary, the helper programs it runs (when built beside it), the man page (complete, and rendered by `man` without a warning) and the bash,
/// zsh and fish completion scripts (which `CompletionTests` tries in their shells).
@Suite(.serialized) struct InstallTests {
  /// What `make install PREFIX=…` puts where, relative to the prefix.
  static let installedFiles = [
    "bin/oprun", "share/man/man1/oprun.1", "share/bash-completion/completions/oprun",
    "share/zsh/site-functions/_oprun", "share/fish/vendor_completions.d/oprun.fish",
  ]

  /// The watchdog program goes with the binary when it was built beside it (`make build`),
  /// and so does the program a cache server is spoken to through.
  static let watchdogProgram = "libexec/oprun/oprun-watchdog"
  static let helperPrograms = [watchdogProgram, "libexec/oprun/oprun-http"]

  @Test func installPutsEveryFileInThePrefixAndUninstallTakesEachAway() throws {
    let prefix = try Scratch()
    let installed = try make(["install-files", "BINARY=\(oprunBinary)", "PREFIX=\(prefix.url.path)"])
    #expect(installed.status == 0, "\(installed.stderr)")
    let builtFolder = URL(fileURLWithPath: oprunBinary).deletingLastPathComponent()
    let builtHelpers = Self.helperPrograms.filter { program in
      FileManager.default.isExecutableFile(
        atPath: builtFolder.appendingPathComponent(URL(fileURLWithPath: program).lastPathComponent).path)
    }
    let expected = Self.installedFiles + builtHelpers
    for file in expected {
      let attributes = try FileManager.default.attributesOfItem(atPath: prefix.path(file))
      let mode = (attributes[.posixPermissions] as? Int) ?? 0
      let executable = file.hasPrefix("bin/") || Self.helperPrograms.contains(file)
      #expect(mode == (executable ? 0o755 : 0o644), "\(file): \(String(mode, radix: 8))")
      #expect(((attributes[.size] as? Int) ?? 0) > 0, "\(file) is empty")
    }
    let version = try OprunProcess(["--version"], in: prefix, executable: prefix.path("bin/oprun")).wait()
    #expect(version.status == 0 && !version.stdout.isEmpty)
    if expected.contains(Self.watchdogProgram) {
      // The installed oprun finds its watchdog in ../libexec/oprun/.
      let folder = try Scratch()
      let marker = "OPRUN_TEST_RUN=\(UUID().uuidString)"
      try folder.manifest("jobs:\n  waiter:\n    command: touch ready; while [ ! -e go ]; do sleep 0.01; done\n")
      let parts = marker.split(separator: "=").map(String.init)
      let run = try OprunProcess(
        runArguments(), in: folder, environment: [parts[0]: parts[1]], executable: prefix.path("bin/oprun"))
      try folder.waitUntilExists("ready")
      try waitUntil("the run's watchdog to start") { liveWatchdogs(withEnvironment: marker).count == 1 }
      let watchdog = try #require(liveWatchdogs(withEnvironment: marker).first)
      let program = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(watchdog)/exe")
      #expect(program == URL(fileURLWithPath: prefix.path(Self.watchdogProgram)).resolvingSymlinksInPath().path)
      folder.touch("go")
      #expect(run.wait().status == 0)
    }

    let removed = try make(["uninstall", "PREFIX=\(prefix.url.path)"])
    #expect(removed.status == 0, "\(removed.stderr)")
    for file in expected + ["libexec/oprun"] {
      #expect(!prefix.exists(file), "\(file) is still there")
    }
  }

  @Test func theManPageRendersWithoutAWarning() throws {
    let rendered = try manPage()
    #expect(rendered.status == 0)
    #expect(rendered.stderr.isEmpty, "\(rendered.stderr)")
    #expect(rendered.stdout.contains("NAME") && rendered.stdout.contains("oprun"))
  }

  /// Every subcommand and every option of every command, as the binary itself lists them
  /// (`--experimental-dump-help`), and every manifest key, signal, exit status and variable.
  @Test func theManPageDocumentsEveryCommandOptionKeySignalStatusAndVariable() throws {
    let page = try manPage().stdout
    let help = try runOprun(["--experimental-dump-help"], in: Scratch())
    let dump = try #require(try JSONSerialization.jsonObject(with: Data(help.stdout.utf8)) as? [String: Any])
    var missing: [String] = []
    func visit(_ command: [String: Any], path: [String]) {
      let name = command["commandName"] as? String ?? ""
      let here = path + (path.isEmpty ? [] : [name])
      // `oprun check`, `oprun ctl`…; a command of `ctl` by its own name, in the list of them.
      let spelled = here.count > 2 ? name : here.joined(separator: " ")
      if !here.isEmpty, name != "help", !page.contains(spelled) {
        missing.append("command " + here.joined(separator: " "))
      }
      for argument in command["arguments"] as? [[String: Any]] ?? [] {
        for spelling in argument["names"] as? [[String: Any]] ?? [] {
          guard let kind = spelling["kind"] as? String, let word = spelling["name"] as? String else { continue }
          let option = (kind == "short" ? "-" : "--") + word
          if !page.contains(option) { missing.append("option \(option) of \(here.joined(separator: " "))") }
        }
      }
      for sub in command["subcommands"] as? [[String: Any]] ?? [] { visit(sub, path: here.isEmpty ? [] : here) }
    }
    visit(try #require(dump["command"] as? [String: Any]), path: [])
    for sub in (dump["command"] as? [String: Any])?["subcommands"] as? [[String: Any]] ?? [] {
      visit(sub, path: ["oprun"])
    }
    let keys =
      TopLevelKey.allCases.map(\.word) + JobKey.allCases.map(\.word) + QueueKey.allCases.map(\.word)
      + DefaultsKey.allCases.map(\.word) + ResourceKey.allCases.map(\.word)
    missing += keys.filter { !page.contains($0) }.map { "manifest key \($0)" }
    let signals = ["SIGINT", "SIGTERM", "SIGKILL", "SIGUSR1", "SIGTSTP", "SIGCONT", "SIGSTOP", "SIGPIPE"]
    missing += signals.filter { !page.contains($0) }.map { "signal \($0)" }
    let variables = [
      "OPRUN_JOB", "OPRUN_QUEUE", "OPRUN_ATTEMPT", "OPRUN_CPUS", "OPRUN_MEMORY", "OPRUN_JOB_STATUS", "OPRUN_EXIT_CODE", "NO_COLOR", "XDG_RUNTIME_DIR",
      "GITHUB_ACTIONS",
    ]
    missing += variables.filter { !page.contains($0) }.map { "variable \($0)" }
    let exitSection = page.components(separatedBy: "EXIT STATUS").dropFirst().first ?? ""
    missing += ["0", "1", "2", "130", "143"].filter { !exitSection.contains($0) }.map { "exit status \($0)" }
    #expect(page.contains("EXAMPLES"))
    #expect(missing.isEmpty, "the man page does not mention: \(missing.joined(separator: ", "))")
  }

  // MARK: - Helpers

  private func make(_ arguments: [String]) throws -> Finished {
    try tool("make", package: "make", ["--no-print-directory", "-C", packageRoot.path] + arguments)
  }

  private func manPage() throws -> Finished {
    try tool(
      "man", package: "man-db",
      ["--warnings", "-E", "UTF-8", "-l", packageRoot.appendingPathComponent("man/oprun.1").path],
      environment: ["MANWIDTH": "100", "MANPAGER": "cat", "PAGER": "cat"])
  }
}

/// Runs the program `name` (from the Debian package `package`) to its end in a scratch folder.
func tool(_ name: String, package: String, _ arguments: [String], environment: [String: String] = [:]) throws
  -> Finished
{
  try ExternalTool(name, package: package).run(arguments, in: try Scratch(), environment: environment)
}
