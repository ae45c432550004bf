import OprunCore
import Testing

@Test func qosBandsFollowFoundation() {
  #expect(QualityOfService.userInteractive.priorityBand == .veryHigh)
  #expect(QualityOfService.userInitiated.priorityBand == .high)
  #expect(QualityOfService.default.priorityBand == .normal)
  #expect(QualityOfService.utility.priorityBand == .low)
  #expect(QualityOfService.background.priorityBand == .veryLow)
}

@Test func explicitPriorityWinsOverQoSAndSerialQueuesIgnoreQoS() {
  let location = SourceLocation(file: "jobs.yaml", line: 1, column: 1)
  var job = JobNode(
    id: 0, name: "a", queue: 0, dependencies: [], qos: .background, commands: ["true"], location: location)
  #expect(job.band(onSerialQueue: false) == .veryLow)
  #expect(job.band(onSerialQueue: true) == .normal)
  job.explicitPriority = .high
  #expect(job.band(onSerialQueue: false) == .high)
  #expect(job.band(onSerialQueue: true) == .high)
}

@Test func priorityWordsRoundTrip() {
  for priority in Priority.allCases {
    #expect(Priority(word: priority.word) == priority)
  }
  #expect(Priority(word: "urgent") == nil)
}
