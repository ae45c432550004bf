import OprunCore
import Testing

@Suite struct ChangeDebounceTests {
  @Test func batchIsDueOnlyAfterTheDelayOfQuietSinceItsLastChange() {
    var debounce = ChangeDebounce(delay: 0.1)
    debounce.note(["a"], at: 10)
    debounce.note(["b"], at: 10.08)
    #expect(debounce.takeIfQuiet(at: 10.15) == nil, "a change 70 ms ago is not quiet yet")
    #expect(debounce.deadline == 10.18)
    #expect(debounce.takeIfQuiet(at: 10.18) == ["a", "b"])
  }

  @Test func aPathChangedManyTimesIsInTheBatchOnce() {
    var debounce = ChangeDebounce(delay: 0.1)
    for step in 0..<1000 { debounce.note(["src/\(step % 3).c"], at: Double(step) / 10_000) }
    #expect(debounce.takeIfQuiet(at: 1) == ["src/0.c", "src/1.c", "src/2.c"])
  }

  @Test func takingTheBatchStartsANewOne() {
    var debounce = ChangeDebounce(delay: 0.1)
    #expect(debounce.takeIfQuiet(at: 5) == nil, "nothing changed")
    debounce.note(["a"], at: 0)
    #expect(debounce.takeIfQuiet(at: 1) == ["a"])
    #expect(debounce.deadline == nil)
    debounce.note(["a"], at: 2)
    #expect(debounce.takeIfQuiet(at: 2.1) == ["a"], "the same path again is news in a new batch")
  }
}
