import Glibc
import OprunCore

/// A run's control channel (SPEC §8): a Unix-domain socket served from the run's own event
/// loop, through which `oprun ctl` steers the run and watches it.
///
/// Each request becomes a ``RunCommand/control(_:reply:)`` handed to `apply` (the run
/// driver's one door), and the reply is written back; a peer of another user is refused
/// unread and reported as ``RunCommand/controlRefused(peerUID:peerPID:)``. The channel
/// decides nothing about the run: it only reads, checks the wire format, and writes.
///
/// Its life in a run: ``open(graph:loop:limits:folder:apply:)`` before the run starts (its
/// ``recorder`` observing the run from the first event), ``stopListening()`` when the last
/// job has finished, ``finish()`` after the last event, which closes every connection without
/// waiting for any. The socket file is removed by ``stopListening()`` (or
/// when the channel is released), whatever ended the run.
public final class ControlChannel {
  /// The socket's path.
  public let path: String
  let loop: EventLoop
  let limits: ControlLimits
  let history: WatchHistory
  let apply: (RunCommand) -> Void
  /// The users served: the run's own, and root.
  private let ownUID: uid_t
  private let graph: JobGraph
  /// The listening descriptor; -1 once closed.
  private var listener: Int32
  private let socketIdentity: FileIdentity?
  private var connections: [ObjectIdentifier: ControlConnection] = [:]
  private var acceptPauseTimer: TimerID?
  /// The run's ``RunDescription`` beside the socket, until it is removed with it.
  private var descriptionPath: String?

  /// Records every event of the run, job output included, for watchers: add it to the
  /// driver before the run starts.
  public private(set) lazy var recorder: any RunObserver = HistoryRecorder(channel: self)

  /// Encodes events into the history's lines.
  private lazy var encoder = EventStreamWriter(graph: graph, includingOutput: true) {
    [weak self] line in self?.record(line)
  }
  /// Events not encoded yet. Most runs are never watched, so until a watcher attaches the
  /// events wait here and are encoded in bulk only when they grow large (``unrecordedLimit``
  /// events or ``unrecordedOutputLimit`` bytes of job output): a run nobody watches pays
  /// next to nothing per event. Once a watcher has attached, every event is encoded at once.
  private var unrecorded: [RunEvent] = []
  private var unrecordedOutputBytes = 0
  private var recordsLive = false
  /// Job output kept while no watcher has attached, in bytes, up to
  /// ``ControlLimits/unwatchedOutputLimit``.
  private var unwatchedOutputBytes = 0
  /// Output left out since the last event kept, per job in the order first left out: each
  /// becomes one `output-skipped` line before the next event kept.
  private var skippedOutput: [JobID: SkippedOutput] = [:]
  private var skippedOrder: [JobID] = []
  static let unrecordedLimit = 65_536
  static let unrecordedOutputLimit = 4 << 20

  private init(
    path: String, listener: Int32, graph: JobGraph, loop: EventLoop, limits: ControlLimits, history: WatchHistory,
    apply: @escaping (RunCommand) -> Void
  ) {
    self.path = path
    self.listener = listener
    self.graph = graph
    self.loop = loop
    self.limits = limits
    self.history = history
    self.apply = apply
    ownUID = geteuid()
    socketIdentity = UnixSocket.identity(of: path)
    loop.watch(fd: listener) { [weak self] in self?.acceptReady() }
  }

  deinit {
    close()
  }

  /// The channel of this run (oprun's pid) in `folder`, or why there can be none; the run
  /// then goes on without one. `description`, when given, is written beside the socket
  /// before it listens (``RunDescription``).
  public static func open(
    graph: JobGraph, loop: EventLoop, limits: ControlLimits = ControlLimits(), folder: String = ControlFolder.path(),
    description: RunDescription? = nil, apply: @escaping (RunCommand) -> Void
  ) -> Result<ControlChannel, ControlChannelError> {
    if let problem = ControlFolder.prepare(folder) { return .failure(ControlChannelError(problem)) }
    let history = WatchHistory(limit: limits.historyLimit)
    let path = ControlFolder.socketPath(in: folder, pid: getpid())
    let descriptionPath = description.map { _ in RunDescription.path(besideSocket: path) }
    if let description, let descriptionPath, let problem = description.write(to: descriptionPath) {
      return .failure(ControlChannelError(problem))
    }
    switch UnixSocket.listen(at: path, backlog: 64) {
    case .success(let listener):
      let channel = ControlChannel(
        path: path, listener: listener, graph: graph, loop: loop, limits: limits, history: history, apply: apply)
      channel.descriptionPath = descriptionPath
      return .success(channel)
    case .failure(let error):
      if let descriptionPath { unlink(descriptionPath) }
      return .failure(ControlChannelError("\(error)"))
    }
  }

  /// Whether every connection is closed: always, once ``finish()`` has been called.
  public var isDrained: Bool { connections.isEmpty }

  /// The last job has finished: the socket is closed and removed, and clients whose request
  /// is not in are closed. Answers being written and watchers go on.
  public func stopListening() {
    guard listener >= 0 else { return }
    loop.unwatch(fd: listener)
    acceptPauseTimer.map(loop.cancelTimer)
    Glibc.close(listener)
    listener = -1
    UnixSocket.remove(path, ifStill: socketIdentity)
    if let descriptionPath { unlink(descriptionPath) }
    descriptionPath = nil
    for connection in Array(connections.values) where connection.phase == .reading {
      connection.close()
    }
  }

  /// The run's last event is recorded, and the run ends without waiting for any client:
  /// each watcher is sent the rest of the history as far as its socket takes it now (one
  /// that cannot take all of it is dropped, see `ControlConnection+Watching.swift`), an
  /// answer is written as far as its socket takes it, and every connection is closed.
  public func finish() {
    stopListening()
    if !connections.isEmpty { recordLive() }
    history.complete()
    for connection in Array(connections.values) { connection.historyCompleted() }
    close()
  }

  /// Closes every connection and the socket, at once.
  public func close() {
    stopListening()
    for connection in Array(connections.values) { connection.close() }
  }

  /// Whether a peer of `peer`'s uid is served by a run of `runUID`'s: its own user, and root.
  static func serves(peer: UInt32, runUID: uid_t) -> Bool {
    peer == runUID || peer == 0
  }

  /// Connections open now.
  var connectionCount: Int { connections.count }

  /// The connections open now, in no order.
  var connectionsForTests: [ControlConnection] { Array(connections.values) }

  func remove(_ connection: ControlConnection) {
    connections.removeValue(forKey: ObjectIdentifier(connection))
  }

  /// An event of the run, for the history: encoded now once someone watches, else later.
  func note(_ event: RunEvent) {
    if recordsLive {
      encoder.observe(event)
      return
    }
    if case .output(let job, _, let text) = event.kind {
      // Once one line is left out, none is kept until a watcher attaches, not even one that fits.
      let limit = limits.unwatchedOutputLimit
      if unwatchedOutputBytes >= limit || unwatchedOutputBytes + text.count > limit {
        unwatchedOutputBytes = limit
        skip(text.count, of: job, at: event.time)
        return
      }
      unwatchedOutputBytes += text.count
      unrecordedOutputBytes += text.count
    } else if !skippedOrder.isEmpty {
      recordSkipped()
    }
    unrecorded.append(event)
    if unrecorded.count >= Self.unrecordedLimit || unrecordedOutputBytes >= Self.unrecordedOutputLimit {
      recordUnrecorded()
    }
  }

  /// A watcher attaches: the history is brought up to date, and from now on every event is
  /// recorded as it happens.
  func recordLive() {
    recordUnrecorded()
    recordSkipped()
    recordsLive = true
  }

  /// What was printed and not kept: the events before it are recorded first, so that its
  /// `output-skipped` line falls where the output did.
  private func skip(_ bytes: Int, of job: JobID, at time: Double) {
    if skippedOrder.isEmpty { recordUnrecorded() }
    if skippedOutput[job] == nil {
      skippedOrder.append(job)
      skippedOutput[job] = SkippedOutput(time: time)
    }
    skippedOutput[job]!.lines += 1
    skippedOutput[job]!.bytes += bytes
  }

  private func recordSkipped() {
    for job in skippedOrder {
      let skipped = skippedOutput[job]!
      encoder.observeSkippedOutput(job: job, lines: skipped.lines, bytes: skipped.bytes, at: skipped.time)
    }
    skippedOrder.removeAll(keepingCapacity: true)
    skippedOutput.removeAll(keepingCapacity: true)
  }

  /// Encodes the waiting events. Their buffer (up to ``unrecordedLimit`` events, 16 MB) is
  /// taken, not copied, and given back emptied for the next ones; an event that arrives while
  /// they are encoded starts a buffer of its own.
  private func recordUnrecorded() {
    var events: [RunEvent] = []
    swap(&events, &unrecorded)
    unrecordedOutputBytes = 0
    for event in events { encoder.observe(event) }
    if unrecorded.isEmpty {
      events.removeAll(keepingCapacity: true)
      unrecorded = events
    }
  }

  /// A line of the run's watch stream: kept, and sent on to every watcher.
  func record(_ line: [UInt8]) {
    history.append(line)
    let failed = history.failure != nil
    for connection in Array(connections.values) {
      if failed { connection.historyFailed() } else { connection.historyGrew(by: line) }
    }
  }

  /// Accepts what is waiting (a bounded number per turn, so that a flood of connections
  /// does not keep the loop from the run).
  private func acceptReady() {
    for _ in 0..<limits.pendingConnections {
      guard listener >= 0 else { return }
      let fd = UnixSocket.accept(listener)
      if fd >= 0 {
        admit(fd)
        continue
      }
      switch errno {
      case EMFILE, ENFILE, ENOBUFS, ENOMEM:
        pauseAccepting()
        return
      case ECONNABORTED, EPROTO, EPERM:
        continue
      default:  // EAGAIN: nothing more waits.
        return
      }
    }
  }

  /// Out of descriptors: the waiting connection would make the listener readable at every
  /// turn; stop watching it for a moment instead.
  private func pauseAccepting() {
    loop.unwatch(fd: listener)
    acceptPauseTimer = loop.schedule(after: limits.acceptPause) { [weak self] in
      guard let self, listener >= 0 else { return }
      acceptPauseTimer = nil
      loop.watch(fd: listener) { [weak self] in self?.acceptReady() }
    }
  }

  /// A new connection: its peer checked first, nothing read from a stranger.
  private func admit(_ fd: Int32) {
    guard let peer = UnixSocket.peer(of: fd) else {
      Glibc.close(fd)
      return
    }
    guard Self.serves(peer: peer.uid, runUID: ownUID) else {
      Glibc.close(fd)
      apply(.controlRefused(peerUID: peer.uid, peerPID: peer.pid))
      return
    }
    let pending = connections.values.count { $0.phase != .watching && $0.phase != .dropping }
    guard pending < limits.pendingConnections else {
      UnixSocket.sendNow(fd, ControlWire.answerLine(.refused("busy: too many connections")))
      Glibc.close(fd)
      return
    }
    let connection = ControlConnection(fd: fd, peer: peer, channel: self)
    connections[ObjectIdentifier(connection)] = connection
    connection.start()
  }
}

/// Why a run has no control channel.
public struct ControlChannelError: Error, Sendable, CustomStringConvertible {
  public var description: String

  init(_ description: String) {
    self.description = description
  }
}

/// Output of one job the history left out: lines and bytes, from `time` on.
private struct SkippedOutput {
  let time: Double
  var lines = 0
  var bytes = 0
}

/// The channel's observer of the run: hands every event to ``ControlChannel/note(_:)``.
private final class HistoryRecorder: RunObserver {
  weak var channel: ControlChannel?

  init(channel: ControlChannel) {
    self.channel = channel
  }

  func observe(_ event: RunEvent) {
    channel?.note(event)
  }
}
