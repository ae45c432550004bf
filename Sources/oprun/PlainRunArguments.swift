import OprunRuntime

/// `oprun [MANIFEST] [JOB...]` with at most a few switches: the command line people type most,
/// read without swift-argument-parser, whose reflection over every command's options took
/// a third of the start-up (about 2.5 ms of a one-job run here).
///
/// Only what the parser would read exactly the same way is taken: words that are no option
/// and name no command, switches that take no value, and `-j N` and `--cache PATH|URL` with a
/// value it would take as is, each at most once and none that exclude each other. Anything
/// else — another option with a value, `--`, `-qk`, `help`, a repeated or conflicting switch,
/// a value it would refuse or read otherwise, an empty word — is left to the parser, so help,
/// errors and completions are its own. Both roads give their switches the meaning `RunSwitches` says
/// (the end-to-end tests compare them).
struct PlainRunArguments {
  private(set) var configuration: RunConfiguration

  /// The words the parser reads as a subcommand, or as a request for help.
  private static let commandWords: Set<String> = ["run", "check", "list", "graph", "report", "ctl", "log", "cache", "help"]

  private enum Switch: Int, CaseIterable {
    case quiet, verbose, keepGoing, failFast, dryRun, resume, noJournal, force, cacheReadOnly, noCache
    case maxConcurrent, cache

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
      case .cacheReadOnly: ["--cache-read-only"]
      case .noCache: ["--no-cache"]
      case .maxConcurrent: ["-j", "--max-concurrent"]
      case .cache: ["--cache"]
      }
    }

    var takesValue: Bool { self == .maxConcurrent || self == .cache }
  }

  /// `word` as an option and its value, when written joined (`-j4`, `--cache=PATH`).
  private static func splitJoined(_ word: String) -> (option: String, value: String)? {
    if word.hasPrefix("--"), let equals = word.firstIndex(of: "=") {
      return (String(word[..<equals]), String(word[word.index(after: equals)...]))
    }
    if word.hasPrefix("-j"), word.count > 2 { return ("-j", String(word.dropFirst(2))) }
    return nil
  }

  /// Nil unless `arguments` (without the program's name) is such a plain run.
  init?(_ arguments: [String]) {
    var positionals: [String] = []
    var switches = RunSwitches()
    // A bit per switch given (a Set's first use costs more than this whole reading).
    var given = 0
    var words = arguments.makeIterator()
    while let word = words.next() {
      if word.hasPrefix("-") {
        let (option, joinedValue) = Self.splitJoined(word).map { ($0.option, Optional($0.value)) } ?? (word, nil)
        guard let found = Switch.allCases.first(where: { $0.spellings.contains(option) }),
          given & (1 << found.rawValue) == 0, found.takesValue || joinedValue == nil
        else { return nil }
        given |= 1 << found.rawValue
        var value = ""
        if found.takesValue {
          // A value the parser might read as an option, or refuse, is its to read.
          guard let written = joinedValue ?? words.next(), !written.isEmpty, !written.hasPrefix("-"),
            !Self.commandWords.contains(written)
          else { return nil }
          value = written
        }
        switch found {
        case .quiet: switches.quiet = true
        case .verbose: switches.verbose = true
        case .keepGoing: switches.keepGoing = true
        case .failFast: switches.failFast = true
        case .dryRun: switches.dryRun = true
        case .resume: switches.resume = true
        case .noJournal: switches.noJournal = true
        case .force: switches.force = true
        case .cacheReadOnly: switches.cacheReadOnly = true
        case .noCache: switches.noCache = true
        case .maxConcurrent:
          guard let limit = Int(value), limit >= 1 else { return nil }
          switches.maxConcurrent = limit
        case .cache: switches.cache = value
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
