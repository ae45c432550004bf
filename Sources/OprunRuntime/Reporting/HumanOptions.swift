/// How the human view of a run looks. The caller decides colour (a TTY and no `NO_COLOR`)
/// and GitHub Actions mode (`GITHUB_ACTIONS=true`); the reporter only follows.
public struct HumanOptions: Sendable, Equatable {
  /// How job output is shown (`--output`).
  public enum OutputMode: String, Sendable, CaseIterable {
    /// Each line as `job | text`, as it arrives.
    case prefixed
    /// A job's output as one block when it finishes, like ninja.
    case grouped
    /// Bytes passed through unchanged, a whole line (ended by `\n` or `\r`) at a time.
    case raw
  }

  /// How much of the lifecycle is shown (`-q` / `-v`).
  public enum Verbosity: Int, Sendable, Comparable, CaseIterable {
    /// Failed and timed-out jobs, warnings and the summary.
    case quiet
    /// Every transition except those to pending, cancellations, queue changes, completions.
    case normal
    /// Also the run's start, attempts and queues on every line, and completions' pids.
    case verbose

    public static func < (a: Verbosity, b: Verbosity) -> Bool { a.rawValue < b.rawValue }
  }

  public var outputMode: OutputMode
  public var color: Bool
  public var verbosity: Verbosity
  /// Wraps grouped output in `::group::` / `::endgroup::` markers.
  public var githubActions: Bool
  /// The terminal's width when human output goes to a terminal, which then gets a live status
  /// line (SPEC §5); nil for no status line.
  public var statusLineColumns: Int?

  public init(
    outputMode: OutputMode = .prefixed, color: Bool = false, verbosity: Verbosity = .normal,
    githubActions: Bool = false, statusLineColumns: Int? = nil
  ) {
    self.outputMode = outputMode
    self.color = color
    self.verbosity = verbosity
    self.githubActions = githubActions
    self.statusLineColumns = statusLineColumns
  }
}
