import OprunCore
import Testing

/// Counts as people read them: one job, no jobs, two jobs.
@Suite struct PluralTests {
  @Test func onlyACountOfOneKeepsTheNounSingular() {
    #expect(counted(1, "job") == "1 job")
    #expect(counted(0, "job") == "0 jobs")
    #expect(counted(2, "earlier line") == "2 earlier lines")
    #expect(plural("pid", count: 1) == "pid")
    #expect(plural("pid", count: 3) == "pids")
  }
}
