import OprunCore

/// Writing the trace-event JSON: `{"traceEvents":[...],"displayTimeUnit":"ms","otherData":{...}}`,
/// one event per line.
extension TraceWriter {
  func writeFile() {
    let tids = laneNumbering()
    var events: [[UInt8]] = metadataEvents(tids: tids)
    for slice in slices { events.append(completeEvent(slice, tid: tids.tid(of: slice.open.lane))) }
    for instant in instants { events.append(instantEvent(instant, tid: instant.lane.map(tids.tid(of:)) ?? 0)) }

    var file = Array("{\"traceEvents\":[\n".utf8)
    for (index, event) in events.enumerated() {
      file.append(contentsOf: event)
      file.append(contentsOf: (index == events.count - 1 ? "\n" : ",\n").utf8)
    }
    file.append(contentsOf: "],\"displayTimeUnit\":\"ms\",\"otherData\":".utf8)
    var other = JSONObjectWriter()
    other.field("manifest", graph.manifest.path)
    if let runID { other.field("run", runID) }
    other.close()
    file.append(contentsOf: other.bytes)
    file.append(contentsOf: "}\n".utf8)
    sink.write(file)
    sink.flush()
  }

  /// Thread ids: 0 for the run, then each pool's lanes in turn, so a queue's lanes sit
  /// together and in order.
  struct LaneNumbering {
    var firstTid: [Int]

    func tid(of lane: Lane) -> Int { firstTid[lane.group] + lane.index }
  }

  func laneNumbering() -> LaneNumbering {
    var firstTid: [Int] = []
    var next = 1
    for pool in pools {
      firstTid.append(next)
      next += pool.peak
    }
    return LaneNumbering(firstTid: firstTid)
  }

  private func metadataEvents(tids: LaneNumbering) -> [[UInt8]] {
    var events = [metadata("process_name", tid: 0, name: "oprun " + graph.manifest.name)]
    events.append(metadata("thread_name", tid: 0, name: "run"))
    for (group, pool) in pools.enumerated() {
      let poolName = group < graph.queues.count ? graph.recordedName(queue: group) : "completions"
      for index in 0..<pool.peak {
        let tid = tids.tid(of: Lane(group: group, index: index))
        events.append(metadata("thread_name", tid: tid, name: poolName + " · lane \(index + 1)"))
        events.append(metadata("thread_sort_index", tid: tid, sortIndex: tid))
      }
    }
    return events
  }

  private func metadata(_ kind: StaticString, tid: Int, name: String? = nil, sortIndex: Int? = nil) -> [UInt8] {
    var event = JSONObjectWriter()
    event.field("name", kind.description)
    event.field("ph", "M")
    event.field("pid", 1)
    event.field("tid", tid)
    event.field("args") { args in
      if let name { args.field("name", name) }
      if let sortIndex { args.field("sort_index", sortIndex) }
    }
    event.close()
    return event.bytes
  }

  private func completeEvent(_ slice: Slice, tid: Int) -> [UInt8] {
    var event = JSONObjectWriter()
    event.field("name", slice.name)
    event.field(
      "cat",
      slice.open.lane.group < graph.queues.count ? graph.recordedName(queue: slice.open.lane.group) : "completion")
    event.field("ph", "X")
    event.field("ts", Self.microseconds(slice.open.start), fractionDigits: 3)
    event.field("dur", Self.microseconds(slice.end - slice.open.start), fractionDigits: 3)
    event.field("pid", 1)
    event.field("tid", tid)
    event.field("args") { args in
      if let outcome = slice.outcome { args.field("outcome", outcome) }
      if let attempt = slice.open.attempt { args.field("attempt", attempt) }
      args.field("pids", slice.open.pids.map(Int.init))
      args.field("exit_code", slice.termination?.exitCode.map(Int.init))
      args.field("signal", slice.termination?.signal.map(Int.init))
      if let usage = slice.usage { args.fields(of: usage) }
    }
    event.close()
    return event.bytes
  }

  private func instantEvent(_ instant: Instant, tid: Int) -> [UInt8] {
    var event = JSONObjectWriter()
    event.field("name", instant.name)
    event.field("ph", "i")
    event.field("s", instant.lane == nil ? "p" : "t")
    event.field("ts", Self.microseconds(instant.time), fractionDigits: 3)
    event.field("pid", 1)
    event.field("tid", tid)
    if let detail = instant.detail {
      event.field("args") { args in args.field(detail.key, detail.value) }
    }
    event.close()
    return event.bytes
  }

  static func microseconds(_ seconds: Double) -> Double { max(seconds, 0) * 1_000_000 }
}
