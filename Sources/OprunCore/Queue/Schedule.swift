/// `--schedule`: how the ready jobs of one priority band of a queue are ordered (SPEC §5).
///
/// Either way the band comes first and a dependency is never overridden: a schedule only
/// orders jobs that are ready, among equals in priority.
public enum Schedule: String, Sendable, CaseIterable {
  /// Manifest order, as Foundation's queues start equal priorities: the default.
  case fifo
  /// The job heading the longest remaining path first (``CriticalPath``), then manifest order.
  case criticalPath = "critical-path"
}
