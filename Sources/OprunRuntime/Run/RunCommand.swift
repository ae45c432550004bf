import OprunCore

/// A change to a run in progress: the only way anything but a backend's report changes a
/// run. Signals, timers and (later) control requests each become one of these and go to
/// ``RunDriver/apply(_:)``.
public enum RunCommand: Sendable, Equatable {
  /// Cancels every queue (`cancelAllOperations`, then resumed to drain), and the run ends
  /// by `endingSignal` once everything is reaped. A second one, of any kind, kills every
  /// process of the run at once and no completion runs any more (SPEC §3.4).
  case cancelRun(reason: CancelReason, endingSignal: Int32)
  /// Standard output's reader has gone, which is what SIGPIPE means to a Unix filter: the
  /// run is cancelled as by SIGTERM and ends by SIGPIPE — unless it is being cancelled
  /// already, which this does not escalate (SPEC §2).
  case outputClosed
  /// Suspends every queue, or resumes them all when every one is suspended (SIGUSR1).
  case toggleSuspension
  /// Stops everything the run has running, as Ctrl-Z stops a shell's job (a job paused by
  /// `oprun ctl pause` is left as it is).
  case stopJobs
  /// Continues what ``stopJobs`` stopped (not a job paused by `oprun ctl pause`).
  case continueJobs
  /// The attempt's time limit has passed.
  case timeout(JobID, attempt: Int)
  /// The grace period of a cancelled attempt is over: what is left of its commands is killed.
  case graceOver([CommandHandle])
  /// A request of the control channel (SPEC §8), answered through `reply`.
  case control(ControlRequest, reply: ControlReply)
  /// A peer the control channel refused (another user); nothing of its request was read.
  case controlRefused(peerUID: UInt32, peerPID: Int32)
  /// Under `--watch`, watched files changed (`count` of them, the first `paths` named), which
  /// `jobs` read: the change is announced (`watch-changed`), then each of `jobs`, and every job
  /// that depends on one of them directly or not, is cancelled (reason `changed`); the others
  /// go on (SPEC §13).
  case filesChanged(paths: [String], count: Int, jobs: [JobID])
  /// Time to try again the locks that jobs wait for, which other runs held (SPEC §10).
  case retryLocks
}
