import Foundation
import OprunCore
import OprunRuntime

/// An ``OutputSink`` over an unlinked temporary file, whose contents a test reads back.
final class CapturedOutput {
  let sink: OutputSink
  private let fileDescriptor: Int32

  init(lineBuffered: Bool = false, capacity: Int = 16 * 1024) {
    var template = Array("/tmp/oprun-reporting-XXXXXX".utf8CString)
    fileDescriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
    precondition(fileDescriptor >= 0, "mkstemp failed")
    template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
    sink = OutputSink(fileDescriptor: fileDescriptor, lineBuffered: lineBuffered, capacity: capacity)
  }

  deinit {
    // Flushed before the descriptor is closed, so that a later flush cannot write into a
    // descriptor number another test has been given since.
    sink.flush()
    close(fileDescriptor)
  }

  /// What has reached the file so far (not what is still buffered).
  var bytes: [UInt8] {
    let size = Int(lseek(fileDescriptor, 0, SEEK_END))
    var bytes = [UInt8](repeating: 0, count: size)
    let count = bytes.withUnsafeMutableBytes { pread(fileDescriptor, $0.baseAddress, size, 0) }
    return Array(bytes.prefix(max(count, 0)))
  }

  var text: String { String(decoding: bytes, as: UTF8.self) }

  var lines: [String] { text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init) }
}

/// A small graph: jobs on the main queue `ci` (max 2) unless placed on another queue.
func makeGraph(
  jobs names: [String], queues: [QueueNode] = [QueueNode(name: "ci", maxConcurrent: 2)], jobQueues: [QueueID] = []
) -> JobGraph {
  let location = SourceLocation(file: "jobs.yaml", line: 1, column: 1)
  let jobs = names.enumerated().map { id, name in
    JobNode(
      id: id, name: name, queue: id < jobQueues.count ? jobQueues[id] : 0, dependencies: [],
      commands: ["true"], location: location)
  }
  return JobGraph(manifest: Manifest(path: "jobs.yaml", name: queues[0].name), queues: queues, jobs: jobs)
}

func transition(
  _ job: JobID, _ from: JobState, _ to: JobState, queue: QueueID = 0, attempt: Int = 1, pids: [Int32] = [],
  outcome: Outcome? = nil, termination: Termination? = nil, duration: Double? = nil, resumed: Bool = false,
  at time: Double
) -> RunEvent {
  RunEvent(
    time: time,
    .transition(
      Transition(
        job: job, queue: queue, from: from, to: to, attempt: attempt, pids: pids, outcome: outcome,
        termination: termination, duration: duration, resumed: resumed)))
}

func output(_ job: JobID, _ text: String, stream: OprunCore.OutputStream = .stdout, at time: Double) -> RunEvent {
  RunEvent(time: time, .output(job: job, stream: stream, text: Array(text.utf8)))
}

/// The events of one job running from pending to finished.
func lifecycle(
  _ job: JobID, start: Double, end: Double, pid: Int32, outcome: Outcome = .succeeded,
  termination: Termination? = .exited(0), queue: QueueID = 0
) -> [RunEvent] {
  [
    transition(job, .pending, .ready, queue: queue, at: start),
    transition(job, .ready, .executing, queue: queue, pids: [pid], at: start),
    transition(
      job, .executing, .finished, queue: queue, outcome: outcome, termination: termination, duration: end - start,
      at: end),
  ]
}

/// The events of one job that its inputs and outputs showed up to date: decided when it
/// became ready, finished at once without running.
func upToDate(_ job: JobID, at time: Double) -> [RunEvent] {
  var ready = Transition(job: job, queue: 0, from: .pending, to: .ready)
  ready.decision = .upToDate
  var finished = Transition(job: job, queue: 0, from: .ready, to: .finished, outcome: .succeeded, duration: 0)
  finished.upToDate = true
  return [RunEvent(time: time, .transition(ready)), RunEvent(time: time, .transition(finished))]
}

func runFinished(exitCode: Int32, counts: [Outcome: Int] = [:], at time: Double) -> RunEvent {
  RunEvent(time: time, .runFinished(exitCode: exitCode, counts: counts))
}

extension RunObserver {
  func observe(_ events: [RunEvent]) {
    for event in events { observe(event) }
  }
}
