import OprunRuntime

/// `oprun [MANIFEST] [JOB...]` with at most a few switches: the command line people type most,
/// read without swift-argument-parser, whose reflection over every command's options took
/// a third of the start-up (about 2.5 ms of a one-job run here).
///
/// Only what the parser would read exactly the same way is taken: words that are no option
/// and name no command, and switches that take no value, each at most once and none that
/// exclude each other. Anything else — an option with a value, `--`, `-qk`, `help`, a
/// repeated or conflicting switch, an empty word — is left to the parser, so help, errors
/// and completions are its own. `RunCommand.run()` builds the same configuration from the
/// parsed options (the end-to-end tests compare the two roads).
struct PlainRunArguments {
  private(set) var configuration: RunConfiguration

  /// The words the parser reads as a subcommand, or as a request for help.
  private static let commandWords: Set<String> = ["run", "check", "graph", "report", "ctl", "log", "help"]

  private enum Switch: CaseIterable {
    case quiet, verbose, keepGoing, failFast, dryRun, resume, noJournal

    var spellings: [String] {
      switch self {
      case .quiet: ["-q", "--quiet"]
      case .verbose: ["-v", "--verbose"]
      case .keepGoing: ["-k", "--keep-going"]
      case .failFast: ["--fail-fast"]
      case .dryRun: ["-n", "--dry-run"]
      case .resume: ["-r", "--resume"]
      case .noJournal: ["--no-journal"]
      }
    }
  }

  /// Nil unless `arguments` (without the program's name) is such a plain run.
  init?(_ arguments: [String]) {
    var positionals: [String] = []
    var switches: Set<Switch> = []
    for word in arguments {
      if word.hasPrefix("-") {
        guard let found = Switch.allCases.first(where: { $0.spellings.contains(word) }),
          switches.insert(found).inserted
        else { return nil }
      } else {
        guard !word.isEmpty, !Self.commandWords.contains(word) else { return nil }
        positionals.append(word)
      }
    }
    if switches.isSuperset(of: [.quiet, .verbose]) || switches.isSuperset(of: [.keepGoing, .failFast]) {
      return nil
    }
    var configuration = RunConfiguration(manifestPath: positionals.first ?? "jobs.yaml")
    configuration.targets = Array(positionals.dropFirst())
    configuration.failurePolicy =
      switches.contains(.keepGoing) ? .continue : switches.contains(.failFast) ? .cancelAll : nil
    configuration.dryRun = switches.contains(.dryRun)
    configuration.verbosity =
      switches.contains(.quiet) ? .quiet : switches.contains(.verbose) ? .verbose : .normal
    configuration.resume = switches.contains(.resume)
    configuration.keepsJournal = !switches.contains(.noJournal)
    configuration.arguments = arguments
    self.configuration = configuration
  }
}
