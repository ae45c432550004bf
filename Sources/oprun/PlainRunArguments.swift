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

  private enum Switch: Int, CaseIterable {
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
    // A bit per switch given (a Set's first use costs more than this whole reading).
    var given = 0
    func has(_ option: Switch) -> Bool { given & (1 << option.rawValue) != 0 }
    for word in arguments {
      if word.hasPrefix("-") {
        guard let found = Switch.allCases.first(where: { $0.spellings.contains(word) }), !has(found) else {
          return nil
        }
        given |= 1 << found.rawValue
      } else {
        guard !word.isEmpty, !Self.commandWords.contains(word) else { return nil }
        positionals.append(word)
      }
    }
    if has(.quiet) && has(.verbose) || has(.keepGoing) && has(.failFast) { return nil }
    var configuration = RunConfiguration(manifestPath: positionals.first ?? "jobs.yaml")
    configuration.targets = Array(positionals.dropFirst())
    configuration.failurePolicy =
      has(.keepGoing) ? .continue : has(.failFast) ? .cancelAll : nil
    configuration.dryRun = has(.dryRun)
    configuration.verbosity =
      has(.quiet) ? .quiet : has(.verbose) ? .verbose : .normal
    configuration.resume = has(.resume)
    configuration.keepsJournal = !has(.noJournal)
    configuration.arguments = arguments
    self.configuration = configuration
  }
}
