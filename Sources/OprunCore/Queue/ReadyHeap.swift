/// The ready operations of one queue, best first: a binary min-heap on a total order.
///
/// The order is ninja's `EdgePriorityLess` made ours: priority band (higher first), then
/// sequence (lower first). A sequence is the job's manifest index, or a fresh number larger
/// than every other when its priority changes live, which puts it at the end of its band.
/// Entries are never removed from the middle: a re-prioritised job is pushed again and the
/// engine discards the stale entry when it surfaces (lazy deletion).
struct ReadyHeap {
  struct Entry {
    /// `rank << sequenceBits | sequence`, so that one integer comparison is the total order.
    var key: Int
    var job: JobID

    var sequence: Int { key & ReadyHeap.sequenceMask }
  }

  static let sequenceBits = 56
  static let sequenceMask = (1 << sequenceBits) - 1

  /// Invariant: `entries[i].key <= entries[child].key` for both children of every `i`.
  private(set) var entries: [Entry] = []

  var isEmpty: Bool { entries.isEmpty }
  var count: Int { entries.count }
  var top: Entry? { entries.first }

  /// The key of a job in `band` with `sequence`: a higher band gives a smaller key.
  static func key(band: Priority, sequence: Int) -> Int {
    let rank = Priority.veryHigh.rawValue - band.rawValue
    return rank << sequenceBits | sequence
  }

  mutating func push(job: JobID, band: Priority, sequence: Int) {
    entries.append(Entry(key: Self.key(band: band, sequence: sequence), job: job))
    siftUp(from: entries.count - 1)
  }

  @discardableResult
  mutating func popTop() -> Entry? {
    guard !entries.isEmpty else { return nil }
    let last = entries.removeLast()
    guard !entries.isEmpty else { return last }
    let top = entries[0]
    entries[0] = last
    siftDown(from: 0)
    return top
  }

  private mutating func siftUp(from start: Int) {
    var child = start
    let moving = entries[child]
    while child > 0 {
      let parent = (child - 1) / 2
      guard moving.key < entries[parent].key else { break }
      entries[child] = entries[parent]
      child = parent
    }
    entries[child] = moving
  }

  private mutating func siftDown(from start: Int) {
    var parent = start
    let moving = entries[parent]
    let count = entries.count
    while true {
      var best = 2 * parent + 1
      guard best < count else { break }
      let right = best + 1
      if right < count, entries[right].key < entries[best].key { best = right }
      guard entries[best].key < moving.key else { break }
      entries[parent] = entries[best]
      parent = best
    }
    entries[parent] = moving
  }

  /// Where the heap order does not hold, if anywhere; for tests and debugging.
  func orderViolation() -> String? {
    for index in entries.indices.dropFirst() where entries[(index - 1) / 2].key > entries[index].key {
      return "ready heap out of order at \(index)"
    }
    return nil
  }
}
