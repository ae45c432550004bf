import Testing

@testable import OprunCore

/// The rarely set parts of jobs live behind one shared reference: copies keep value semantics,
/// and writing a default allocates nothing.
@Suite struct SharedTests {
  private let location = SourceLocation(file: "jobs.yaml", line: 3, column: 3)

  @Test func settingAPartToTheValueItHoldsKeepsTheBox() {
    let box = Shared(JobSpec.RareKeys())
    #expect(box.setting(\.inputs, to: []) === box)
    #expect(box.setting(\.cache, to: nil) === box)
    let changed = box.setting(\.cache, to: false)
    #expect(changed !== box && changed.value.cache == false && box.value.cache == nil)
  }

  @Test func aChangedCopyOfAJobSpecLeavesTheOriginalAsItWas() {
    var original = JobSpec(name: "build", location: location, commands: ["make"])
    original.inputs = [Located("src/**", at: location)]
    var copy = original
    copy.inputs.append(Located("Makefile", at: location))
    copy.resources = ResourceSpec(cpus: Located(4, at: location))
    copy.cwd = "sub"
    #expect(original.inputs.map(\.value) == ["src/**"])
    #expect(original.resources == ResourceSpec() && original.cwd == nil)
    #expect(copy.inputs.map(\.value) == ["src/**", "Makefile"] && copy.resources.cpus?.value == 4 && copy.cwd == "sub")
  }

  @Test func aChangedCopyOfAJobNodeLeavesTheOriginalAsItWas() {
    let original = JobNode(id: 0, name: "test", queue: 0, dependencies: [], commands: ["true"], location: location)
    var copy = original
    copy.completion = "echo done"
    copy.description = "runs the tests"
    copy.cacheEnv = ["CC"]
    #expect(original.completion == nil && original.description == nil && original.cacheEnv.isEmpty)
    #expect(copy.completion == "echo done" && copy.description == "runs the tests" && copy.cacheEnv == ["CC"])
  }

  @Test func aTransitionsFilesAndDecisionAreSetReadAndComparedAsValues() {
    var first = Transition(job: 1, queue: 0, from: .pending, to: .ready)
    first.decision = .runs(.noJournal)
    var second = first
    #expect(second == first)
    second.decision = .resumed
    #expect(second != first && first.decision == .runs(.noJournal) && second.decision == .resumed)
    second.decision = .runs(.noJournal)
    #expect(second == first)
  }
}
