import Glibc
import OprunCore

extension SlurmBackend {
  /// The next poll, `pollInterval` from now, while a job of the run has not ended and none is
  /// due yet.
  func schedulePoll() {
    guard !isPollDue, jobs.contains(where: { $0.phase != .ended }) else { return }
    isPollDue = true
    loop.schedule(after: pollInterval) { [weak self] in
      self?.isPollDue = false
      self?.poll()
    }
  }

  /// One `squeue` for every job of the run not seen ended, read on the loop as it comes: a
  /// job array by its id, with a line for each of its tasks (`--array`).
  func poll() {
    guard !isPolling else { return }
    var ids: [String] = []
    var listed: Set<Int32> = []
    for job in jobs where job.phase != .ended && listed.insert(job.slurmID).inserted { ids.append(String(job.slurmID)) }
    guard !ids.isEmpty else { return }
    let arguments = [
      "squeue", "--noheader", "--array", "--states=all", "--jobs=" + ids.joined(separator: ","),
      "--Format=JobID:|,State:|,Reason:|,exit_code:|,ArrayJobID:|,ArrayTaskID:|",
    ]
    switch tool.spawner.spawn(tool.request(arguments)) {
    case .failure(let error):
      warnOnce("cannot run squeue: \(error)")
      schedulePoll()
    case .success(let process):
      isPolling = true
      var output: [UInt8] = []
      var errors: [UInt8] = []
      loop.watchProcess(
        process, output: .chunks,
        onOutput: { stream, bytes in
          if stream == .stdout { output.append(contentsOf: bytes) } else { errors.append(contentsOf: bytes) }
        },
        onExit: { [weak self] termination in
          guard let self else { return }
          isPolling = false
          if termination == .exited(0) {
            observe(String(decoding: output, as: UTF8.self))
          } else {
            warnOnce("squeue failed: \(String(decoding: errors, as: UTF8.self).trimmingSpaces); still trying")
          }
          schedulePoll()
        })
    }
  }

  /// What one `squeue` showed, reported in submission order (every job after its
  /// dependencies): a job seen running began; a job seen ended began (if it was never seen
  /// running and did run) and exited, its output read first from its file; a cancelled job
  /// never seen running ended unstarted.
  func observe(_ text: String) {
    var seen: [String: SqueueLine] = [:]
    for line in text.split(whereSeparator: \.isNewline) {
      if let parsed = SqueueLine(line) { seen[parsed.slurmName] = parsed }
    }
    for index in jobs.indices where jobs[index].phase != .ended {
      guard let line = seen[jobs[index].slurmName] else { continue }
      observe(line, of: index)
    }
  }

  private func observe(_ line: SqueueLine, of index: Int) {
    if jobs[index].arrayTask != nil, jobs[index].phase == .queued, line.state != "PENDING" {
      jobs[index].taskID = line.id
    }
    let job = jobs[index]
    switch line.state {
    case "PENDING", "REQUEUED", "REQUEUE_HOLD", "REQUEUE_FED", "RESV_DEL_HOLD":
      break
    case "RUNNING", "COMPLETING", "CONFIGURING", "SUSPENDED", "STOPPED", "SIGNALING", "STAGE_OUT", "RESIZING":
      if job.phase == .queued {
        jobs[index].phase = .running
        reportHandler?(.began(job.work, job.handles))
      }
    case "CANCELLED" where job.phase == .queued:
      jobs[index].phase = .ended
      let reason =
        line.reason.hasPrefix("Dependency")
        ? "Slurm cancelled it: a dependency can never be satisfied (\(line.reason))"
        : "cancelled on the cluster before it started"
      reportHandler?(.endedUnstarted(job.work, reason: reason))
    default:
      // COMPLETED, FAILED, TIMEOUT, CANCELLED after running, NODE_FAIL, OUT_OF_MEMORY, …
      if job.phase == .queued { reportHandler?(.began(job.work, job.handles)) }
      jobs[index].phase = .ended
      reportOutput(of: job)
      let termination = line.termination
      for handle in job.handles { reportHandler?(.exited(job.work, handle, termination, nil)) }
    }
  }

  /// The job's output file, a line at a time, as its output.
  private func reportOutput(of job: ClusterJob) {
    guard var bytes = Self.contents(of: job.outputPath), !bytes.isEmpty else { return }
    if let secrets = local.secrets { bytes = secrets.masked(bytes) }
    var start = 0
    for index in bytes.indices where bytes[index] == UInt8(ascii: "\n") {
      reportHandler?(.output(job.work, .stdout, Array(bytes[start...index])))
      start = index + 1
    }
    if start < bytes.count { reportHandler?(.output(job.work, .stdout, Array(bytes[start...]))) }
  }

  static func contents(of path: String) -> [UInt8]? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
      let count = read(fd, &chunk, chunk.count)
      if count > 0 {
        bytes.append(contentsOf: chunk[0..<count])
      } else if count < 0 && errno == EINTR {
        continue
      } else {
        break
      }
    }
    return bytes
  }

  private func warnOnce(_ message: String) {
    guard !warnedAboutPolling else { return }
    warnedAboutPolling = true
    onWarning?(message)
  }
}

/// One line of `squeue --Format=JobID:|,State:|,Reason:|,exit_code:|,ArrayJobID:|,ArrayTaskID:|`.
struct SqueueLine: Equatable {
  /// The job's id; a task of a job array has one of its own once it has left the queue.
  var id: Int32
  var state: String
  var reason: String
  /// The batch script's wait status, as `waitpid` gives it.
  var waitStatus: Int32
  /// `ARRAY_TASK` for a task of a job array, else the job's id.
  var slurmName: String

  init?(_ line: Substring) {
    let fields = line.split(separator: "|", omittingEmptySubsequences: false).map { String($0).trimmingSpaces }
    guard fields.count >= 4, let id = Int32(fields[0]), let status = Int32(fields[3]) else { return nil }
    self.id = id
    state = fields[1]
    reason = fields[2]
    waitStatus = status
    if fields.count >= 6, let array = Int32(fields[4]), let task = Int(fields[5]) {
      slurmName = "\(array)_\(task)"
    } else {
      slurmName = String(id)
    }
  }

  /// How the job's script ended; a job the cluster ended (cancelled, out of time) without a
  /// status of its own was ended by a signal.
  var termination: Termination {
    let ended = Termination(waitStatus: waitStatus)
    if ended == .exited(0), state != "COMPLETED" { return .signalled(SIGTERM) }
    return ended
  }
}
