#if canImport(Glibc)
  import Glibc
#endif

/// A buffered writer over a file descriptor, for reporters.
///
/// Bytes collect in a user-space queue and reach the descriptor in as few `write(2)` calls
/// as possible: when the queue fills, on ``flush()``, and, in line-buffered mode, whenever
/// a write contains a newline. Interrupted and partial writes are resumed. Bytes kept in a
/// file (grouped output too large for memory) are queued as a range of it, read back a
/// piece at a time as the descriptor takes them.
///
/// A sink made with an event loop never blocks it (``Mode``): what the descriptor does not
/// take now stays queued and is written when the loop finds it writable. While more than the
/// high-water mark waits (in memory or in a queued file range) the sink is congested and holds the loop's job output back
/// (``EventLoop/holdBackOutput()``) until less than the low-water mark waits: jobs writing
/// faster than oprun's reader then block in their own writes, and nothing is dropped. A sink
/// made without a loop blocks as long as the descriptor does (messages outside a run).
///
/// A reader that has gone away (`EPIPE`; oprun ignores SIGPIPE) or any other write error
/// breaks the sink: what it holds and everything later is dropped, so a closed pipe never
/// stops or stalls the run. A sink on a loop tells `onFailure` once, on a later turn of the
/// loop, never from inside a write.
///
/// Not thread-safe: a sink belongs to the thread that drives the run's observers.
public final class OutputSink {
  /// 1 MiB: sixteen of the loop's 64 KiB reads, so a burst from many jobs at once passes
  /// without pausing any of them, while a run whose reader stops keeps about that much in
  /// memory (plus one read, and what exiting jobs leave in their pipes).
  public static let defaultHighWaterMark = 1 << 20
  /// 256 KiB: far enough under the high mark that jobs are not paused and resumed on every
  /// write, with enough still queued to keep the reader busy while the jobs start again.
  public static let defaultLowWaterMark = 256 << 10

  /// The descriptor written to (or reopened, see ``Mode``); the sink never closes it.
  public let fileDescriptor: Int32
  /// Whether every write that contains a newline is flushed at once.
  public let isLineBuffered: Bool
  /// How bytes reach the descriptor.
  public let mode: Mode
  /// The `errno` of the write that broke the sink, or nil while it works.
  public private(set) var failure: Int32?
  /// Whether the sink holds the loop's job output back now.
  public private(set) var isCongested = false
  /// Called on the loop when the descriptor, once writable again, has taken everything
  /// queued; never from inside ``write(_:)-(String)`` or ``flush()``.
  public var onDrained: (() -> Void)?

  /// What is written to: `fileDescriptor` when blocking, else a descriptor the sink owns.
  let target: Int32
  /// Bytes accepted and not written yet are `queue[queueStart...]`, then `later`, then
  /// `trailing`; all empty once broken. Invariant: in blocking mode, fewer than `capacity`
  /// between calls.
  private var queue: [UInt8] = []
  private var queueStart = 0
  /// File ranges, and the bytes between them, queued after `queue`; empty in the common
  /// case. Invariant: holds no empty element.
  private var later: [Queued] = []
  /// Bytes accepted after the last element of `later`; empty when `later` is.
  private var trailing: [UInt8] = []
  /// The bytes `later` and `trailing` stand for.
  private var laterByteCount = 0
  private let capacity: Int
  private let waterMarks: (high: Int, low: Int)
  private weak var loop: EventLoop?
  private let onFailure: ((Int32) -> Void)?
  /// Invariant: a writable watch on `target` is set exactly while this holds.
  private var isWaitingForWritable = false
  /// Set from a failure until `onFailure` has run.
  private var isReportingFailure = false
  /// While holding (``hold(in:)``): what was written since, in order, instead of queued.
  private var held: KeptOutput?
  private var heldStorage = GroupedOutputStorage.standard

  /// A blocking sink over `fileDescriptor`; `capacity` bytes are queued before a write is forced.
  public convenience init(fileDescriptor: Int32, lineBuffered: Bool = false, capacity: Int = 16 * 1024) {
    self.init(
      fileDescriptor, lineBuffered, capacity, loop: nil, writing: (.blocking, fileDescriptor),
      waterMarks: (Int.max, Int.max), onFailure: nil)
  }

  /// A sink that writes `fileDescriptor` without blocking `loop`, where its kind allows
  /// (``Mode/choose(for:)``), and holds the loop's job output back while more than
  /// `highWaterMark` bytes wait, until less than `lowWaterMark` do.
  public convenience init(
    fileDescriptor: Int32, lineBuffered: Bool = false, capacity: Int = 16 * 1024, loop: EventLoop,
    highWaterMark: Int = defaultHighWaterMark, lowWaterMark: Int = defaultLowWaterMark,
    onFailure: @escaping (Int32) -> Void = { _ in }
  ) {
    precondition(lowWaterMark <= highWaterMark, "the low-water mark is above the high one")
    self.init(
      fileDescriptor, lineBuffered, capacity, loop: loop, writing: Mode.choose(for: fileDescriptor),
      waterMarks: (highWaterMark, lowWaterMark), onFailure: onFailure)
  }

  private init(
    _ fileDescriptor: Int32, _ lineBuffered: Bool, _ capacity: Int, loop: EventLoop?,
    writing: (mode: Mode, target: Int32), waterMarks: (high: Int, low: Int), onFailure: ((Int32) -> Void)?
  ) {
    self.fileDescriptor = fileDescriptor
    self.isLineBuffered = lineBuffered
    self.capacity = max(capacity, 1)
    self.loop = loop
    self.mode = writing.mode
    self.target = writing.target
    self.waterMarks = waterMarks
    self.onFailure = onFailure
    queue.reserveCapacity(self.capacity)
  }

  deinit {
    // A last try: all of it when blocking, what fits now otherwise.
    while queuedByteCount > 0 {
      if queueStart == queue.count {
        takeNextQueued()
        continue
      }
      let result = queue[queueStart...].withUnsafeBytes { put($0) }
      queueStart += result.written
      if result.error != nil || queueStart < queue.count { break }
    }
    stopWaitingForWritable()
    if isCongested { loop?.releaseOutput() }
    if mode != .blocking { close(target) }
  }

  /// Whether output is being dropped because the descriptor can no longer be written.
  public var isBroken: Bool { failure != nil }

  /// Bytes accepted and not yet written.
  public var queuedByteCount: Int { queue.count - queueStart + laterByteCount }

  /// Whether everything accepted was written, or dropped and the failure reported.
  public var isDrained: Bool { queuedByteCount == 0 && !isReportingFailure }

  /// Appends the UTF-8 bytes of `text`.
  public func write(_ text: String) {
    var text = text
    text.withUTF8 { write(UnsafeRawBufferPointer($0)) }
  }

  /// Appends `bytes`.
  public func write(_ bytes: [UInt8]) {
    bytes.withUnsafeBytes { write($0) }
  }

  /// Appends `bytes`; the memory is not retained.
  public func write(_ bytes: UnsafeRawBufferPointer) {
    guard !isBroken, !bytes.isEmpty else { return }
    if held != nil {
      _ = held!.append(Array(bytes), storage: heldStorage)
      return
    }
    if queuedByteCount + bytes.count >= capacity {
      flush()
      guard !isBroken else { return }
      if bytes.count >= capacity, queuedByteCount == 0 {
        // Nothing waits before it: written from where it is, only the rest is copied.
        let result = put(bytes)
        if result.error == nil { enqueue(UnsafeRawBufferPointer(rebasing: bytes[result.written...])) }
        settle(result)
        return
      }
    }
    enqueue(bytes)
    if isLineBuffered, bytes.contains(UInt8(ascii: "\n")) { flush() } else { updateCongestion() }
  }

  /// Writes what is queued, as far as the descriptor takes it now (all of it, for a
  /// blocking sink); the rest follows when the descriptor is writable.
  public func flush() {
    // While waiting, the loop says when a write can succeed.
    if !isWaitingForWritable { writeQueued() }
  }

  /// Whether what is written is being held back (``hold(in:)``).
  public var isHolding: Bool { held != nil }

  /// From now on, what is written is kept — in memory up to `storage`'s bound per sink, then
  /// in a temporary file — and written only at ``release()``, in order: while an interactive
  /// job owns the terminal, nothing is written over its prompt. What was queued before goes
  /// on being written.
  public func hold(in storage: GroupedOutputStorage = .standard) {
    guard held == nil else { return }
    heldStorage = storage
    held = KeptOutput()
  }

  /// Writes what was held, in order, and stops holding.
  public func release() {
    guard let kept = held else { return }
    held = nil
    kept.write(to: self)
    flush()
  }

  /// Forgets everything accepted and not yet written, at once: none of it is ever written,
  /// not even by the last try of `deinit`. For a reader that is given up on (a dropped
  /// watcher), whose descriptor then holds exactly what it was sent.
  public func discardQueued() {
    queue.removeAll(keepingCapacity: false)
    queueStart = 0
    later = []
    trailing = []
    laterByteCount = 0
    stopWaitingForWritable()
    updateCongestion()
  }

  /// Appends `count` bytes of `file` from `offset`. They are read back a piece at a time
  /// when the descriptor can take them, never all at once; the file stays open until then.
  func write(_ file: SpillFile, from offset: Int, count: Int) {
    guard !isBroken, count > 0 else { return }
    if held != nil {
      var start = offset
      while start < offset + count {
        let piece = min(Self.filePieceSize, offset + count - start)
        _ = held!.append(file.read(piece, at: start), storage: heldStorage)
        start += piece
      }
      return
    }
    if !trailing.isEmpty {
      later.append(.bytes(trailing))
      trailing = []
    }
    later.append(.file(file, offset: offset, count: count))
    laterByteCount += count
    if isLineBuffered { flush() } else { updateCongestion() }
  }

  /// Bytes read from a queued file range at a time.
  static let filePieceSize = 64 << 10

  private func writeQueued() {
    guard queuedByteCount > 0, !isBroken else { return }
    var result = PutResult()
    repeat {
      if queueStart == queue.count { takeNextQueued() }
      result = queue[queueStart...].withUnsafeBytes { put($0) }
      queueStart += result.written
    } while result.error == nil && queueStart == queue.count && laterByteCount > 0
    settle(result)
  }

  /// Moves what comes next in `later` into the emptied `queue`: bytes, or the next piece of
  /// a file range. A range that cannot be read back (which a file oprun wrote itself does
  /// not do short of a failing disk) is dropped rather than retried forever.
  private func takeNextQueued() {
    queue.removeAll(keepingCapacity: true)
    queueStart = 0
    guard let next = later.first else {
      swap(&queue, &trailing)
      laterByteCount -= queue.count
      return
    }
    switch next {
    case .bytes(let bytes):
      queue = bytes
      later.removeFirst()
      laterByteCount -= bytes.count
    case .file(let file, let offset, let count):
      let piece = file.read(min(count, Self.filePieceSize), at: offset)
      if piece.isEmpty || piece.count == count {
        later.removeFirst()
        laterByteCount -= count
      } else {
        later[0] = .file(file, offset: offset + piece.count, count: count - piece.count)
        laterByteCount -= piece.count
      }
      queue = piece
    }
  }

  private func enqueue(_ bytes: UnsafeRawBufferPointer) {
    guard !bytes.isEmpty else { return }
    guard later.isEmpty, trailing.isEmpty else {
      trailing.append(contentsOf: bytes)
      laterByteCount += bytes.count
      return
    }
    if queueStart > 0, queueStart >= queue.count / 2 {
      queue.removeSubrange(..<queueStart)
      queueStart = 0
    }
    queue.append(contentsOf: bytes)
  }

  /// After a write: fail, or wait for the descriptor if bytes are left, and update congestion.
  private func settle(_ result: PutResult) {
    if let error = result.error {
      fail(error)
    } else if queuedByteCount == 0 {
      queue.removeAll(keepingCapacity: true)
      queueStart = 0
      stopWaitingForWritable()
    } else {
      waitForWritable()
    }
    updateCongestion()
  }

  private func updateCongestion() {
    if !isCongested, queuedByteCount >= waterMarks.high {
      isCongested = true
      loop?.holdBackOutput()
    } else if isCongested, queuedByteCount < waterMarks.low {
      isCongested = false
      loop?.releaseOutput()
    }
  }

  private func waitForWritable() {
    guard !isWaitingForWritable, let loop else { return }
    isWaitingForWritable = true
    loop.watchWritable(fd: target) { [weak self] in self?.becameWritable() }
  }

  private func stopWaitingForWritable() {
    guard isWaitingForWritable else { return }
    isWaitingForWritable = false
    loop?.unwatchWritable(fd: target)
  }

  private func becameWritable() {
    writeQueued()
    if queuedByteCount == 0, !isBroken { onDrained?() }
  }

  private func fail(_ code: Int32) {
    failure = code
    queue = []
    queueStart = 0
    later = []
    trailing = []
    laterByteCount = 0
    stopWaitingForWritable()
    guard let loop, onFailure != nil else { return }
    isReportingFailure = true
    loop.schedule(after: 0) { [weak self] in self?.reportFailure() }
  }

  private func reportFailure() {
    isReportingFailure = false
    if let failure { onFailure?(failure) }
  }
}

/// What waits in an ``OutputSink`` after a queued file range.
private enum Queued {
  case bytes([UInt8])
  case file(SpillFile, offset: Int, count: Int)
}
