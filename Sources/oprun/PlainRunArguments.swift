import OprunRuntime

/// `oprun [MANIFEST] [JOB...]` with at most a few switches: the command line people type most,
/// read without swift-argument-parser, whose reflection over every command's options took
/// a third of the start-up (about 2.5 ms of a one-job run here).
///
/// Only what the parser would read exactly the same way is taken: words that are no option
/// and name no command, and switches that take no value, each at most once and none that
/// exclude each other. Anything else — an option with a value, `--`, `-qk`, `help`, a
/// repeated or conflicting switch, an empty word — is left to the parser, so help, errors
/// and completions are its own. Both roads give their switches the meaning `RunSwitches` says
/// (the end-to-end tests compare them).
struct PlainRunArguments {
  private(set) var configuration: RunConfiguration

  /// The words the parser reads as a subcommand, or as a request for help.
  private static let commandWords: Set<String> = ["run", "check", "list", "graph", "report", "ctl", "log", "cache", "help"]

  private enum Switch: Int, CaseIterable {
    case quiet, verbose, keepGoing, failFast, dryRun, resume, noJournal, force

    var spellings: [String] {
      switch self {
      case .quiet: ["-q", "--quiet"]
      case .verbose: ["-v", "--verbose"]
      case .keepGoing: ["-k", "--keep-going"]
      case .failFast: ["--fail-fast"]
      case .dryRun: ["-n", "--dry-run"]
      case .resume: ["-r", "--resume"]
      case .noJournal: ["--no-journal"]
      case .force: ["-B", "--force"]
      }
    }
  }

  /// Nil unless `arguments` (without the program's name) is such a plain run.
  init?(_ arguments: [String]) {
    var positionals: [String] = []
    var switches = RunSwitches()
    // A bit per switch given (a Set's first use costs more than this whole reading).
    var given = 0
    for word in arguments {
      if word.hasPrefix("-") {
        guard let found = Switch.allCases.first(where: { $0.spellings.contains(word) }),
          given & (1 << found.rawValue) == 0
        else { return nil }
        given |= 1 << found.rawValue
        switch found {
        case .quiet: switches.quiet = true
        case .verbose: switches.verbose = true
        case .keepGoing: switches.keepGoing = true
        case .failFast: switches.failFast = true
        case .dryRun: switches.dryRun = true
        case .resume: switches.resume = true
        case .noJournal: switches.noJournal = true
        case .force: switches.force = true
        }
      } else {
        guard !word.isEmpty, !Self.commandWords.contains(word) else { return nil }
        positionals.append(word)
      }
    }
    if switches.excludeEachOther { return nil }
    configuration = switches.configuration(words: positionals)
  }
}
