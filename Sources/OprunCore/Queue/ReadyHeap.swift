/// The ready operations of one queue, best first: a ``MinHeap`` on a total order.
///
/// The order is ninja's `EdgePriorityLess` made ours: priority band (higher first), then
/// sequence (lower first). A sequence is the job's manifest index (its ``CriticalPath``
/// rank under `--schedule critical-path`), or a fresh number larger than every other when
/// its priority changes live, which puts it at the end of its band.
/// Entries are never removed from the middle: a re-prioritised job is pushed again and the
/// engine discards the stale entry when it surfaces (lazy deletion).
struct ReadyHeap {
  struct Entry: Comparable {
    /// `rank << sequenceBits | sequence`, so that one integer comparison is the total order.
    var key: Int
    var job: JobID

    var sequence: Int { key & ReadyHeap.sequenceMask }

    /// The key alone orders entries, and equality agrees with it.
    static func < (a: Entry, b: Entry) -> Bool { a.key < b.key }
    static func == (a: Entry, b: Entry) -> Bool { a.key == b.key }
  }

  static let sequenceBits = 56
  static let sequenceMask = (1 << sequenceBits) - 1

  private var heap = MinHeap<Entry>()

  /// Every entry, in no particular order.
  var entries: [Entry] { heap.unordered }
  var isEmpty: Bool { heap.isEmpty }
  var count: Int { heap.count }
  var top: Entry? { heap.min }

  /// The key of a job in `band` with `sequence`: a higher band gives a smaller key.
  static func key(band: Priority, sequence: Int) -> Int {
    let rank = Priority.veryHigh.rawValue - band.rawValue
    return rank << sequenceBits | sequence
  }

  mutating func push(job: JobID, band: Priority, sequence: Int) {
    heap.push(Entry(key: Self.key(band: band, sequence: sequence), job: job))
  }

  @discardableResult
  mutating func popTop() -> Entry? {
    heap.popMin()
  }

  /// Where the heap order does not hold, if anywhere; for tests and debugging.
  func orderViolation() -> String? {
    heap.firstOrderViolation().map { "ready heap out of order at \($0)" }
  }
}
