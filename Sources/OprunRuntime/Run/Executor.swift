import Glibc
import OprunCore

/// Drives a ``QueueEngine`` with real processes on one ``EventLoop``.
///
/// The engine decides what starts and how a job ends; the executor only launches what it
/// is handed, reports exits back, signals the jobs the engine cancels, runs completion
/// commands, and turns oprun's own signals into engine calls. Everything happens on the
/// loop's thread.
final class Executor: RunObserver {
  let graph: JobGraph
  let engine: QueueEngine
  let loop: EventLoop
  let bus: EventBus
  let grace: Double
  let framing: OutputFraming
  let environment: JobEnvironment
  /// Where a job with no `cwd` of its own runs.
  let manifestFolder: String
  let spawner = Spawner()

  /// Jobs whose commands are running, by id.
  var running: [JobID: RunningJob] = [:]
  /// Completion commands still running: their process groups.
  var completionGroups: Set<Int32> = []
  /// Every process group this run created (jobs and completions), each with the serial
  /// number of the spawn that created it: a number the kernel hands out again belongs to
  /// a later spawn, and a timer meant for the first one must leave it alone.
  var groupSerials: [Int32: Int] = [:]
  var lastSerial = 0
  /// The first cancelling signal oprun received; the run ends by it.
  var receivedSignal: Int32?
  /// A second interrupt killed everything: no completion runs any more.
  var killedEverything = false
  /// Groups stopped by Ctrl-Z, to continue when oprun is continued.
  var stoppedGroups: [Int32] = []
  /// Set while `launchReady` starts a batch.
  var isLaunching = false
  /// oprun's signal handling for the run; nil only if it could not be installed.
  var trap: SignalTrap?

  init(graph: JobGraph, engine: QueueEngine, loop: EventLoop, bus: EventBus, configuration: RunConfiguration) {
    self.graph = graph
    self.engine = engine
    self.loop = loop
    self.bus = bus
    self.grace = configuration.grace
    self.framing = configuration.outputMode == .raw ? .chunks : .lines
    self.environment = JobEnvironment(inherited: JobEnvironment.inherited())
    self.manifestFolder = graph.manifestFolder
  }

  /// Records a group this run just created; returns its serial.
  @discardableResult
  func registerGroup(_ group: Int32) -> Int {
    lastSerial += 1
    groupSerials[group] = lastSerial
    return lastSerial
  }

  /// Runs every job to its end, then sweeps what the jobs left in their groups.
  func run() {
    becomeChildSubreaper()
    engine.start()
    launchReady()
    loop.run { engine.isDrained && running.isEmpty && completionGroups.isEmpty }
    sweepLeftoverGroups()
  }

  /// Starts everything the engine allows now. A launch that fails at once frees its slot,
  /// so ask again until the engine has nothing more.
  func launchReady() {
    // A job that finishes while its batch is being launched asks again; the loop below
    // already will, after the batch, so that jobs start in the order the engine chose.
    guard !isLaunching else { return }
    isLaunching = true
    defer { isLaunching = false }
    while true {
      let launches = engine.nextLaunches()
      if launches.isEmpty { return }
      for launch in launches { self.launch(launch) }
    }
  }

  func observe(_ event: RunEvent) {
    switch event.kind {
    case .cancelled(let job, let reason):
      signalCancelled(job, reason: reason)
    case .transition(let transition) where transition.to == .finished:
      startCompletion(of: transition)
    default:
      break
    }
  }
}

/// The commands of one executing attempt.
struct RunningJob {
  /// One process group per started command (its pid), with the serial it was registered under.
  var groups: [(group: Int32, serial: Int)]
  /// Commands that have not exited yet.
  var remaining: Int
  /// The first command that did not succeed decides; `.exited(0)` while all did.
  var termination: Termination = .exited(0)
  var timeoutTimer: TimerID?
  /// Set once a cancelling signal was sent, so that a second cancel does not re-send it.
  var signalled = false
}
