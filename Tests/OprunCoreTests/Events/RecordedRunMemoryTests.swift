import Testing

@testable import OprunCore

/// Memory in use over a recorded run: each attempt at its peak from its start to its end.
@Suite struct RecordedRunMemoryTests {
  @Test func overlappingAttemptsAddUpAndWhatEndsIsTakenOffBeforeWhatStarts() {
    let lines = [
      #"{"t":0,"event":"run-started","queues":{"ci":2},"jobs":3,"run":"r"}"#,
      #"{"t":0,"event":"transition","job":"a","queue":"ci","from":"ready","to":"executing","attempt":1,"pids":[1]}"#,
      #"{"t":1,"event":"transition","job":"b","queue":"ci","from":"ready","to":"executing","attempt":1,"pids":[2]}"#,
      #"{"t":2,"event":"transition","job":"a","queue":"ci","from":"executing","to":"ready","attempt":1,"exit_code":1,"signal":null,"cpu_s":1,"peak_memory":100,"memory_source":"cgroup"}"#,
      #"{"t":2,"event":"transition","job":"a","queue":"ci","from":"ready","to":"executing","attempt":2,"pids":[3]}"#,
      #"{"t":3,"event":"transition","job":"b","queue":"ci","from":"executing","to":"finished","attempt":1,"outcome":"succeeded","exit_code":0,"signal":null,"duration":2,"cpu_s":1,"peak_memory":30,"memory_source":"process"}"#,
      #"{"t":4,"event":"transition","job":"a","queue":"ci","from":"executing","to":"finished","attempt":2,"outcome":"succeeded","exit_code":0,"signal":null,"duration":2,"cpu_s":3,"peak_memory":200,"memory_source":"cgroup"}"#,
      #"{"t":4,"event":"transition","job":"c","queue":"ci","from":"ready","to":"executing","attempt":1,"pids":[4]}"#,
    ]
    let run = RecordedRun(eventLines: Array(lines.joined(separator: "\n").utf8))
    #expect(
      run.memoryInUse.map { [$0.time, Double($0.bytes)] } == [[0, 100], [1, 130], [2, 230], [3, 200], [4, 0]])
    #expect(run.jobs[0].usage == ResourceUsage(cpuSeconds: 3, peakMemory: 200, source: .cgroup))
    #expect(run.jobs[0].attempts.map(\.peakMemory) == [100, 200])
  }

  @Test func aRunWithoutFiguresHasNoMemoryInUse() {
    #expect(RecordedRun(eventLines: Array(RecordedRunTests.finishedRun.utf8)).memoryInUse.isEmpty)
  }
}
