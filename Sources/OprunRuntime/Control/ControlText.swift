import OprunCore

/// How `oprun ctl` shows answers to a person: `status` as a table of queues then jobs,
/// `list` as a table of runs. Every field is shown as the run gave it; one that is missing
/// or null is `-`, so a run that answers with fewer fields is still shown.
public enum ControlText {
  /// The status answer's data (`run`, `queues`, `jobs`) as text.
  public static func status(_ data: JSONValue) -> String {
    var text = ""
    if let run = data["run"] { text += runLine(run) + "\n" }
    let queues = data["queues"]?.arrayValue ?? []
    text += TextTable.render(
      ["QUEUE", "LIMIT", "RUNNING", "SUSPENDED"],
      queues.map { [$0["name"], $0["max_concurrent"], $0["running"], $0["suspended"]].map(cell) })
    let jobs = data["jobs"]?.arrayValue ?? []
    if !queues.isEmpty, !jobs.isEmpty { text += "\n" }
    text += TextTable.render(
      ["JOB", "QUEUE", "STATE", "OUTCOME", "CANCELLED", "PAUSED", "PRIORITY", "PIDS"],
      jobs.map { job in
        [
          job["name"], job["queue"], job["state"], job["outcome"], job["cancelled"], job["paused"], job["priority"],
          job["pids"],
        ].map(cell)
      })
    return text
  }

  /// The runs in progress, one line each: their `run` objects where they gave one.
  public static func list(_ runs: [(pid: Int32, run: JSONValue?)]) -> String {
    guard !runs.isEmpty else { return "no run of this user is in progress\n" }
    return TextTable.render(
      ["PID", "RUN", "STARTED", "COUNTS", "MANIFEST"],
      runs.map { pid, run in
        [String(pid), cell(run?["run"]), started(run?["started"]), counts(run?["counts"]), cell(run?["manifest"])]
      })
  }

  /// `run ID · pid N · started … · MANIFEST`.
  static func runLine(_ run: JSONValue) -> String {
    var parts: [String] = []
    if let id = run["run"]?.stringValue { parts.append("run " + id) }
    if let pid = run["pid"] { parts.append("pid " + cell(pid)) }
    if let time = run["started"], !time.isNull { parts.append("started " + started(time)) }
    if let counts = run["counts"], !counts.isNull { parts.append(self.counts(counts)) }
    if let manifest = run["manifest"]?.stringValue { parts.append(manifest) }
    return parts.joined(separator: " · ")
  }

  /// A cell: text as is, numbers as written, yes/no, `-` for null or missing, lists
  /// space-separated, objects as `key value` pairs.
  static func cell(_ value: JSONValue?) -> String {
    switch value {
    case nil, .null?: "-"
    case .bool(let flag)?: flag ? "yes" : "no"
    case .number(let text)?: text
    case .string(let text)?: text.isEmpty ? "-" : text
    case .array(let elements)?: elements.isEmpty ? "-" : elements.map { cell($0) }.joined(separator: " ")
    case .object(let members)?: members.map { $0.key + " " + cell($0.value) }.joined(separator: " · ")
    }
  }

  /// Counts by name, those that are not zero: `succeeded 3 · failed 1`.
  static func counts(_ value: JSONValue?) -> String {
    guard let members = value?.objectValue else { return cell(value) }
    let shown = members.filter { $0.value.intValue != 0 }
    return shown.isEmpty ? "-" : shown.map { $0.key + " " + cell($0.value) }.joined(separator: " · ")
  }

  /// A Unix time as local `YYYY-MM-DD HH:MM:SS`.
  static func started(_ value: JSONValue?) -> String {
    value?.doubleValue.flatMap(TimeText.localTime) ?? cell(value)
  }
}
