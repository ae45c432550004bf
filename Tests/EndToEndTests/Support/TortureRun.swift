import Foundation

/// What one torture scenario's run left for the invariants to judge.
struct TortureRun {
  let scenario: TortureScenario
  let folder: Scratch
  var finished: Finished
  var log: EventLog
  /// The signal the test sent, if it sent one.
  var signalSent: Int32?
  /// Whether some job had not finished, by the event stream, when the signal was sent: then
  /// oprun must act on it.
  var signalMeetsRunningRun = false
  /// Problems seen while driving the run (a hang, a suspension that never came).
  var driveProblems: [String] = []
  /// What was left of the run's processes after the generous deadline.
  var leftovers: [String] = []

  /// How long oprun may take before the test calls it hung and kills it.
  static let hangLimit = 240.0
  /// How long after oprun's exit processes of the run may linger.
  static let leftoverLimit = 15 + 3 * TortureScenario.grace

  /// Runs `scenario` in a fresh folder and collects everything the invariants need.
  init(_ scenario: TortureScenario) throws {
    self.scenario = scenario
    folder = try Scratch()
    try folder.manifest(scenario.manifest)
    try FileManager.default.createDirectory(atPath: folder.path("tails"), withIntermediateDirectories: false)
    try FileManager.default.createDirectory(atPath: folder.path("runtime"), withIntermediateDirectories: false)
    let process = try OprunProcess(
      scenario.arguments, in: folder, environment: ["XDG_RUNTIME_DIR": folder.path("runtime")])
    var problems: [String] = []
    if let moment = scenario.action.afterTransitions {
      let follower = EventFollower(path: folder.path(eventsFile))
      try? waitUntil("transition \(moment)", limit: Self.hangLimit) {
        follower.transitionCount() >= moment || !isAlive(process.pid)
      }
      if isAlive(process.pid) {
        signalMeetsRunningRun = follower.finishedCount() < scenario.jobs.count
        switch scenario.action {
        case .interrupt: signalSent = SIGINT
        case .terminate: signalSent = SIGTERM
        case .kill: signalSent = SIGKILL
        case .suspendAndResume: signalSent = SIGUSR1
        case .nothing: break
        }
        if let signalSent { process.send(signalSent) }
        if case .suspendAndResume = scenario.action {
          problems += Self.resume(process, follower: follower, queues: scenario.limits.count)
        }
      }
    }
    if !process.awaitExit(limit: Self.hangLimit) {
      problems.append("oprun still running \(Int(Self.hangLimit)) s after it started; killed")
      process.send(SIGKILL)
    }
    log = folder.events
    driveProblems = problems
    // Leftovers get SIGTERM and SIGKILL after the grace; a SIGKILLed oprun's jobs get the
    // same from whatever watches them. The deadline is generous for a loaded machine, and
    // well short of the minute the longest-lived processes of a run would last on their own.
    leftovers = RunLeftovers.awaitNone(token: scenario.token, groups: Set(log.jobGroups), limit: Self.leftoverLimit)
    finished = process.wait()
  }

  /// After the first SIGUSR1: waits until every queue says it is suspended and no job is
  /// executing (running jobs go on and finish; nothing new may start), then sends the second.
  private static func resume(_ process: OprunProcess, follower: EventFollower, queues: Int) -> [String] {
    do {
      try waitUntil("every queue suspended and idle", limit: hangLimit) {
        !isAlive(process.pid)
          || (follower.count(of: "\"state\":\"suspended\"") >= queues && follower.executingNow() == 0)
      }
    } catch {
      return ["after SIGUSR1 the queues never stood suspended with nothing executing"]
    }
    guard isAlive(process.pid) else { return [] }
    process.send(SIGUSR1)
    return []
  }
}

/// Reads an event stream that is still being written: each call reads the file anew and
/// counts whole lines only.
final class EventFollower: @unchecked Sendable {
  let path: String

  init(path: String) { self.path = path }

  private var lines: [Substring] {
    guard let text = try? String(contentsOfFile: path, encoding: .utf8), let end = text.lastIndex(of: "\n") else {
      return []
    }
    return text[..<end].split(separator: "\n")
  }

  func count(of fragment: String) -> Int { lines.filter { $0.contains(fragment) }.count }

  func transitionCount() -> Int { count(of: "\"event\":\"transition\"") }

  func finishedCount() -> Int { count(of: "\"to\":\"finished\"") }

  /// Jobs in the executing state now, by the stream so far.
  func executingNow() -> Int { count(of: "\"to\":\"executing\"") - count(of: "\"from\":\"executing\"") }
}
