import OprunCore

/// A control request the run has checked and accepted: every name resolved, every number
/// read, every job in a state the request allows. Carrying it out cannot fail.
enum ControlAction: Equatable {
  case status
  /// Answered `ok`; the channel streams the events.
  case watch
  /// `Operation.cancel()` of each, reason `control`.
  case cancel([JobID])
  /// `cancelAllOperations()` of those queues, then resumed; nil for every queue.
  case cancelAll([QueueID]?)
  case suspend([QueueID])
  case resume([QueueID])
  case limit(QueueID, Int)
  /// The run's whole new budget; every unfinished job fits in it.
  case budget(ResourceBudget)
  /// Each has not started; a matrix job's plain name gives its instances that wait.
  case priority([JobID], Priority)
  /// Each is executing and not paused.
  case pause([JobID])
  /// Each is paused.
  case `continue`([JobID])
}

/// Why the run refused a control request, in words for the user.
struct ControlRefusal: Error, Equatable {
  var message: String

  init(_ message: String) {
    self.message = message
  }
}

/// A control request as the run checked it: what to do, or why not.
typealias CheckedRequest = Result<ControlAction, ControlRefusal>
