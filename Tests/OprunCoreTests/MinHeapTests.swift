import PropertyBased
import Testing

@testable import OprunCore

/// The one heap: whatever is pushed comes out least first, and the heap order holds between
/// any two operations.
@Suite struct MinHeapTests {
  @Test func popsInAscendingOrderWhateverThePushesAndPopsInBetween() async {
    await propertyCheck(count: 200, input: Gen.uint64(in: 0 ... .max), Gen.int(in: 0...300)) { seed, steps in
      var random = SeededGenerator(seed: seed)
      var heap = MinHeap<Int>()
      var model: [Int] = []
      for _ in 0..<steps {
        if Bool.random(using: &random) || model.isEmpty {
          let value = Int.random(in: -20...20, using: &random)
          heap.push(value)
          model.append(value)
        } else {
          model.sort()
          #expect(heap.popMin() == model.removeFirst())
        }
        #expect(heap.firstOrderViolation() == nil)
        heap.checkInvariants()
        #expect(heap.count == model.count)
        #expect(heap.min == model.min())
      }
      var drained: [Int] = []
      while let value = heap.popMin() { drained.append(value) }
      #expect(drained == model.sorted())
      #expect(heap.isEmpty)
    }
  }

  @Test func anElementLessThanItsParentIsFound() {
    var heap = MinHeap<Int>()
    for value in [1, 2, 3] { heap.push(value) }
    heap.storage[2] = 0
    #expect(heap.firstOrderViolation() == 2)
  }
}
