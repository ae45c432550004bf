import OprunRuntime

/// A run's switches that take no value, as either road reads them (`Run`'s parsed
/// flags, or `PlainRunArguments`), and the one place that says what each sets.
struct RunSwitches {
  var quiet = false
  var verbose = false
  var keepGoing = false
  var failFast = false
  var dryRun = false
  var resume = false
  var noJournal = false
  var force = false

  /// Pairs the parser refuses (`Run.validate()`).
  var excludeEachOther: Bool { quiet && verbose || keepGoing && failFast }

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
    configuration.arguments = Array(CommandLine.arguments.dropFirst())
    return configuration
  }
}
