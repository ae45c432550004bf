import Foundation

/// The NDJSON event stream of a run, parsed.
struct EventLog {
  var events: [[String: Any]]

  init(path: String) {
    let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    events = text.split(separator: "\n").compactMap { line in
      (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
    }
  }

  /// Events of one kind, optionally about one job.
  func named(_ event: String, job: String? = nil) -> [[String: Any]] {
    events.filter { $0["event"] as? String == event && (job == nil || $0["job"] as? String == job) }
  }

  /// The `finished` transition of `job`.
  func finish(of job: String) -> [String: Any]? {
    named("transition", job: job).first { $0["to"] as? String == "finished" }
  }

  func outcome(of job: String) -> String? { finish(of: job)?["outcome"] as? String }

  /// Jobs in the order they went to `state`.
  func order(of state: String) -> [String] {
    named("transition").filter { $0["to"] as? String == state }.compactMap { $0["job"] as? String }
  }

  /// Whether `job` ever started executing.
  func executed(_ job: String) -> Bool {
    named("transition", job: job).contains { $0["to"] as? String == "executing" }
  }

  var last: [String: Any]? { events.last }
}
