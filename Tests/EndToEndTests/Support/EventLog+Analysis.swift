import Foundation

extension EventLog {
  /// Every `transition` event, in order.
  var transitions: [[String: Any]] { named("transition") }

  /// The transitions of `job` to `state`.
  func transitions(of job: String, to state: String) -> [[String: Any]] {
    named("transition", job: job).filter { $0["to"] as? String == state }
  }

  /// The pids of `job`'s first `executing` transition (one per command).
  func pids(of job: String) -> [Int32] {
    let executing = transitions(of: job, to: "executing").first
    return (executing?["pids"] as? [Any] ?? []).compactMap { ($0 as? NSNumber)?.int32Value }
  }

  /// Every pid any job executed with: each is the leader of its own process group.
  var jobGroups: [Int32] {
    transitions.filter { $0["to"] as? String == "executing" }.flatMap { event in
      (event["pids"] as? [Any] ?? []).compactMap { ($0 as? NSNumber)?.int32Value }
    }
  }

  /// Jobs of `queue` in the order they went to `state`.
  func order(of state: String, queue: String) -> [String] {
    transitions.filter { $0["to"] as? String == state && $0["queue"] as? String == queue }
      .compactMap { $0["job"] as? String }
  }

  /// Where the first event matching `predicate` stands in the stream.
  func index(where predicate: ([String: Any]) -> Bool) -> Int? {
    events.firstIndex(where: predicate)
  }

  /// Where `job`'s first transition to `state` stands in the stream.
  func index(of job: String, to state: String) -> Int? {
    index { $0["event"] as? String == "transition" && $0["job"] as? String == job && $0["to"] as? String == state }
  }

  /// The `cancelled` event of `job`'s reason.
  func cancelReason(of job: String) -> String? {
    named("cancelled", job: job).first?["reason"] as? String
  }

  /// The `run-finished` event's exit code.
  var finishedExitCode: Int? { (named("run-finished").first?["exit_code"] as? NSNumber)?.intValue }

  /// The largest number of jobs of each queue executing at once, replaying the stream: a job
  /// executes from its `executing` transition until it leaves that state (finished, or back
  /// to ready for a retry).
  var mostExecutingAtOnce: [String: Int] {
    var executing: [String: Int] = [:]
    var most: [String: Int] = [:]
    for event in transitions {
      guard let queue = event["queue"] as? String else { continue }
      if event["to"] as? String == "executing" {
        executing[queue, default: 0] += 1
        most[queue] = max(most[queue] ?? 0, executing[queue]!)
      } else if event["from"] as? String == "executing" {
        executing[queue, default: 0] -= 1
      }
    }
    return most
  }

  /// Every job named in a transition, and how many `finished` transitions it has.
  var finishedCounts: [String: Int] {
    var counts: [String: Int] = [:]
    for event in transitions {
      guard let job = event["job"] as? String else { continue }
      counts[job, default: 0] += event["to"] as? String == "finished" ? 1 : 0
    }
    return counts
  }

  /// The number of jobs `run-started` announced.
  var announcedJobCount: Int? { (named("run-started").first?["jobs"] as? NSNumber)?.intValue }
}

extension [String: Any] {
  func int(_ key: String) -> Int? { (self[key] as? NSNumber)?.intValue }
  func double(_ key: String) -> Double? { (self[key] as? NSNumber)?.doubleValue }
  func string(_ key: String) -> String? { self[key] as? String }
  /// True when the field is present and JSON null.
  func isNull(_ key: String) -> Bool { self[key] is NSNull }
}
