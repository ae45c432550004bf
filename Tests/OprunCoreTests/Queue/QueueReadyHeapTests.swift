import Testing

@testable import OprunCore

@Suite struct QueueReadyHeapTests {
  @Test func heapPopsByBandThenSequence() {
    var heap = ReadyHeap()
    let entries: [(JobID, Priority, Int)] = [
      (0, .normal, 0), (1, .low, 1), (2, .veryHigh, 2), (3, .normal, 3), (4, .veryLow, 4), (5, .veryHigh, 9),
      (6, .high, 6),
    ]
    for (job, band, sequence) in entries.reversed() {
      heap.push(job: job, band: band, sequence: sequence)
      #expect(heap.orderViolation() == nil)
    }
    var order: [JobID] = []
    while let entry = heap.popTop() {
      #expect(heap.orderViolation() == nil)
      order.append(entry.job)
    }
    #expect(order == [2, 5, 6, 0, 3, 1, 4])
  }

  @Test func keyKeepsTheSequence() {
    let entry = ReadyHeap.Entry(key: ReadyHeap.key(band: .veryLow, sequence: 123_456), job: 7)
    #expect(entry.sequence == 123_456)
  }
}
