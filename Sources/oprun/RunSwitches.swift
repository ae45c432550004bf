import OprunRuntime

/// What either road reads of a run's command line (`Run`'s parsed options, or
/// `PlainRunArguments`) — the switches that take no value and the few options people type
/// most — and the one place that says what each sets.
struct RunSwitches {
  var quiet = false
  var verbose = false
  var keepGoing = false
  var failFast = false
  var dryRun = false
  var resume = false
  var noJournal = false
  var force = false
  var cacheReadOnly = false
  var noCache = false
  /// `-j N`.
  var maxConcurrent: Int?
  /// `--cache PATH|URL`.
  var cache: String?

  /// Pairs the parser refuses (`Run.validate()`).
  var excludeEachOther: Bool {
    quiet && verbose || keepGoing && failFast || noCache && (cache != nil || cacheReadOnly)
  }

  /// A run of the manifest and jobs `words` name (`[MANIFEST] [JOB...]`) with these switches,
  /// every other setting at its default.
  func configuration(words: [String]) -> RunConfiguration {
    var configuration = RunConfiguration(words: words)
    configuration.failurePolicy = keepGoing ? .continue : failFast ? .cancelAll : nil
    configuration.dryRun = dryRun
    configuration.verbosity = quiet ? .quiet : verbose ? .verbose : .normal
    configuration.resume = resume
    configuration.keepsJournal = !noJournal
    configuration.force = force
    configuration.maxConcurrent = maxConcurrent
    configuration.cache = cache
    configuration.cacheReadOnly = cacheReadOnly
    configuration.noCache = noCache
    configuration.arguments = Array(CommandLine.arguments.dropFirst())
    return configuration
  }
}
