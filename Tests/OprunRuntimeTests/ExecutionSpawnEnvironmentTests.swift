import OprunCore
import Testing

@testable import OprunRuntime

@Suite struct ExecutionSpawnEnvironmentTests {
  /// What `withPointers` hands a child, read back.
  private func passed(_ environment: SpawnEnvironment) -> [String] {
    environment.withPointers { SpawnEnvironment.strings(of: $0) }
  }

  @Test func aNameAppearsOnceWhereItFirstStoodWithItsLastValue() {
    let environment = SpawnEnvironment(["A=1", "B=2", "A=3"])
    #expect(environment.entries == ["A=3", "B=2"])
    #expect(passed(environment) == ["A=3", "B=2"])
  }

  @Test func aJobsVariablesReplaceInheritedOnesInPlaceAndNewOnesFollowInOrder() {
    let inherited = SpawnEnvironment(["HOME=/root", "PATH=/bin", "TERM=dumb"])
    let job = inherited.setting([
      EnvironmentEntry("PATH", "/opt/bin"), EnvironmentEntry("OPRUN_JOB", "a"),
      EnvironmentEntry("X", "1=2"), EnvironmentEntry("OPRUN_JOB", "b"),
    ])
    let expected = ["HOME=/root", "PATH=/opt/bin", "TERM=dumb", "OPRUN_JOB=b", "X=1=2"]
    #expect(job.entries == expected)
    #expect(passed(job) == expected)
    #expect(job.value(of: "PATH") == "/opt/bin")
    #expect(job.value(of: "X") == "1=2")
    #expect(job.value(of: "TERM") == "dumb")
    #expect(job.value(of: "TER") == nil)
    #expect(inherited.entries == ["HOME=/root", "PATH=/bin", "TERM=dumb"], "the shared entries are not changed")
  }

  @Test func anEmptyEnvironmentPassesNoEntries() {
    #expect(passed([]) == [])
    #expect(passed(SpawnEnvironment([]).setting(entry: "PWD=/")) == ["PWD=/"])
  }
}
