import OprunCore

/// The page of `oprun report EVENTS --html OUT` (SPEC §4): one self-contained HTML file of a
/// recorded run — summary, failures with their last lines of output, a Gantt timeline per
/// queue lane, each matrix job's instances together, the jobs, sorted by any column and
/// filtered by name and outcome — that needs no network. The timeline zooms; a queue too
/// crowded to draw job by job at the zoom in use is drawn as how many of its jobs ran at once.
///
/// The run is embedded as JSON in a `<script type="application/json">` block and drawn by the
/// page's own script (``HTMLReport/template``), the timeline on a canvas and the job table a
/// screenful of rows at a time, so that a run of 10,000 jobs opens as fast as one of ten.
/// Every `<` in the data is written `\u003c`: no job name can end the block or open a tag,
/// and the script puts names in the page as text only.
public enum HTMLReport {
  /// The page of `run`. A failure's last lines come from the run's `output` lines, or, when
  /// it has none (`--events-output none`), from `journal`, the run's journal, when there is one.
  public static func page(of run: RecordedRun, journal: Journal? = nil) -> [UInt8] {
    var page = Array(template.utf8)
    guard let slot = page.firstRange(of: Array(dataSlot.utf8)) else { return page }
    page.replaceSubrange(slot, with: data(of: run, journal: journal))
    return page
  }

  /// A failure's last lines of output, oldest first, and how many it printed in all.
  struct LastLines {
    var lines: [String]
    var total: Int
  }

  /// The last lines of each failure (by its index in the run's jobs), and whether they are the
  /// journal's.
  static func lastLines(of run: RecordedRun, journal: Journal?) -> (lines: [Int: LastLines], fromJournal: Bool) {
    guard run.outputEventCount == 0, let journal, journal.header?.run == run.run else {
      let lines = run.failureOutput.mapValues { tail in
        LastLines(lines: tail.lines.map { String(decoding: $0, as: UTF8.self) }, total: tail.totalLines)
      }
      return (lines, false)
    }
    let records = journal.recordsByJob
    var lines: [Int: LastLines] = [:]
    for (index, job) in run.jobs.enumerated() where job.outcome == .failed || job.outcome == .timedOut {
      guard let record = records[job.name], !record.output.isEmpty else { continue }
      lines[index] = LastLines(lines: record.output, total: record.outputLines)
    }
    return (lines, true)
  }

  /// Where the page's template takes the run's data.
  static let dataSlot = "/*RUN-DATA*/"

  /// The run as the page reads it, `<` escaped.
  static func data(of run: RecordedRun, journal: Journal? = nil) -> [UInt8] {
    let layout = ReportLayout(run)
    let lastLines = lastLines(of: run, journal: journal)
    var object = JSONObjectWriter()
    writeSummary(of: run, to: &object)
    if lastLines.fromJournal { object.field("output_from_journal", true) }
    object.field("queues", objects: run.queues.indices) { index, queue in
      let recorded = run.queues[index]
      queue.field("name", recorded.name)
      queue.field("max_concurrent", recorded.maxConcurrent)
      queue.field("first_row", layout.queueRows[index].firstRow)
      queue.field("lanes", layout.queueRows[index].lanes)
      queue.field("suspensions", objects: recorded.suspensions) { writeInterval($0, to: &$1) }
    }
    object.field("rows", layout.rowCount)
    let queueIndex = Dictionary(run.queues.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
    object.field("jobs", objects: run.jobs.indices) { index, fields in
      let job = run.jobs[index]
      writeJob(job, queue: queueIndex[job.queue] ?? 0, to: &fields)
      if let lines = lastLines.lines[index] { writeLastLines(lines, to: &fields) }
    }
    object.field("bars", objects: layout.bars) { bar, fields in
      fields.field("job", bar.job)
      fields.field("attempt", bar.attempt)
      fields.field("row", bar.row)
      fields.field("start", bar.start)
      fields.field("end", bar.end)
      if bar.isOpen { fields.field("open", true) }
      fields.field("state", bar.state)
      fields.field("exit_code", bar.exitCode)
      fields.field("signal", bar.signal)
    }
    writeMemory(run.memoryInUse, to: &object)
    object.field("critical_path", layout.criticalPath)
    object.field("matrices", objects: run.matrices) { group, fields in
      fields.field("template", group.template)
      fields.field("jobs", group.jobs)
    }
    object.close()
    return escapingAngleBrackets(object.bytes)
  }

  private static func writeSummary(of run: RecordedRun, to object: inout JSONObjectWriter) {
    object.field("run", run.run)
    object.field("complete", run.isComplete)
    object.field("exit_code", run.exitCode)
    object.field("end", run.end)
    object.field("announced_jobs", run.announcedJobs ?? run.jobs.count)
    var counts = run.counts
    if !run.isComplete {
      counts = [:]
      for case let outcome? in run.jobs.map(\.outcome) { counts[outcome, default: 0] += 1 }
    }
    object.field("counts") { members in
      for outcome in Outcome.allCases { members.field(named: outcome.rawValue, counts[outcome] ?? 0) }
    }
    object.field("warnings", run.warnings)
    object.field("unreadable_lines", run.unreadableLines.count)
  }

  private static func writeJob(_ job: RecordedRun.Job, queue: Int, to fields: inout JSONObjectWriter) {
    fields.field("name", job.name)
    if let template = job.template { fields.field("template", template) }
    fields.field("queue", queue)
    fields.field("outcome", job.outcome?.rawValue)
    fields.field("exit_code", job.exitCode)
    fields.field("signal", job.signal)
    if let duration = job.duration { fields.field("duration", duration) }
    if let pending = job.pending { fields.field("pending", pending) }
    if let ready = job.ready { fields.field("ready", ready) }
    if let finished = job.finished { fields.field("finished", finished) }
    if let after = job.after { fields.field("after", after) }
    if let description = job.description { fields.field("description", description) }
    if let cancelled = job.cancelled {
      fields.field("cancelled") { members in
        members.field("reason", cancelled.reason.rawValue)
        members.field("t", cancelled.time)
      }
    }
    if let error = job.startError { fields.field("error", error) }
    if let reason = job.reason { fields.field("reason", reason) }
    if job.resumed { fields.field("resumed", true) }
    if let usage = job.usage {
      fields.fields(of: usage)
      fields.field("memory", MemoryText.text(bytes: usage.peakMemory))
    }
    if !job.pauses.isEmpty { fields.field("pauses", objects: job.pauses) { writeInterval($0, to: &$1) } }
    if let completion = job.completion {
      fields.field("completion") { members in
        members.field("exit_code", completion.exitCode)
        members.field("signal", completion.signal)
      }
    }
  }

  /// Memory in use over time (`memory`: steps of `t` and `bytes`) and its largest amount, in
  /// bytes (`memory_peak`) and as the run's sizes read (`memory_peak_text`); nothing when no
  /// job's figures are in the stream.
  private static func writeMemory(_ steps: [RecordedRun.MemoryStep], to object: inout JSONObjectWriter) {
    guard let peak = steps.map(\.bytes).max(), peak > 0 else { return }
    object.field("memory", objects: steps) { step, fields in
      fields.field("t", step.time)
      fields.field("bytes", step.bytes)
    }
    object.field("memory_peak", peak)
    object.field("memory_peak_text", MemoryText.text(bytes: peak))
  }

  /// A failure's last lines of output (`output`) and how many it printed (`output_lines`).
  private static func writeLastLines(_ lastLines: LastLines, to fields: inout JSONObjectWriter) {
    fields.field("output", lastLines.lines)
    fields.field("output_lines", lastLines.total)
  }

  private static func writeInterval(_ interval: RecordedRun.Interval, to fields: inout JSONObjectWriter) {
    fields.field("start", interval.start)
    if let end = interval.end { fields.field("end", end) }
  }

  /// `<` only ever occurs inside JSON strings, where `\u003c` means the same.
  static func escapingAngleBrackets(_ json: [UInt8]) -> [UInt8] {
    var escaped: [UInt8] = []
    escaped.reserveCapacity(json.count + 64)
    for byte in json {
      if byte == UInt8(ascii: "<") {
        escaped.append(contentsOf: "\\u003c".utf8)
      } else {
        escaped.append(byte)
      }
    }
    return escaped
  }
}
