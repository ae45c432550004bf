import Foundation
import OprunCore
import Testing

@testable import OprunRuntime

/// `oprun report`: what the page is given to draw — lanes, bars, the critical path — and
/// that nothing from the run can break out of its data block.
@Suite struct ReportingHTMLReportTests {
  static let hostileName = "</script><b>x \"quoted\" 'single' é 🚀"

  static let run = """
    {"t":0,"event":"run-started","queues":{"ci":2,"net":1},"jobs":5,"run":"20261125-000000-1"}
    {"t":0,"event":"transition","job":"a","queue":"ci","from":"pending","to":"ready","attempt":1}
    {"t":0,"event":"transition","job":"b","queue":"ci","from":"pending","to":"ready","attempt":1}
    {"t":0,"event":"transition","job":"c","queue":"ci","from":"pending","to":"pending","attempt":1}
    {"t":0,"event":"transition","job":"d","queue":"net","from":"pending","to":"pending","attempt":1}
    {"t":0,"event":"transition","job":\(JSONText.string(hostileName)),"queue":"net","from":"pending","to":"ready","attempt":1}
    {"t":0,"event":"transition","job":"a","queue":"ci","from":"ready","to":"executing","attempt":1,"pids":[10]}
    {"t":0.1,"event":"transition","job":"b","queue":"ci","from":"ready","to":"executing","attempt":1,"pids":[11]}
    {"t":0.1,"event":"queue","queue":"net","state":"suspended"}
    {"t":0.15,"event":"cancelled","job":\(JSONText.string(hostileName)),"reason":"control"}
    {"t":0.3,"event":"queue","queue":"net","state":"resumed"}
    {"t":0.3,"event":"transition","job":\(JSONText.string(hostileName)),"queue":"net","from":"ready","to":"finished","attempt":1,"outcome":"cancelled","exit_code":null,"signal":null,"duration":0}
    {"t":0.5,"event":"transition","job":"b","queue":"ci","from":"executing","to":"ready","attempt":1,"exit_code":1,"signal":null}
    {"t":0.6,"event":"transition","job":"b","queue":"ci","from":"ready","to":"executing","attempt":2,"pids":[12]}
    {"t":1,"event":"transition","job":"a","queue":"ci","from":"executing","to":"finished","attempt":1,"outcome":"succeeded","exit_code":0,"signal":null,"duration":1}
    {"t":1,"event":"transition","job":"c","queue":"ci","from":"pending","to":"ready","attempt":1,"after":"a"}
    {"t":1,"event":"transition","job":"c","queue":"ci","from":"ready","to":"executing","attempt":1,"pids":[13]}
    {"t":2,"event":"transition","job":"b","queue":"ci","from":"executing","to":"finished","attempt":2,"outcome":"failed","exit_code":3,"signal":null,"duration":1.4}
    {"t":3,"event":"transition","job":"c","queue":"ci","from":"executing","to":"finished","attempt":1,"outcome":"succeeded","exit_code":0,"signal":null,"duration":2}
    {"t":3,"event":"transition","job":"d","queue":"net","from":"pending","to":"ready","attempt":1,"after":"c"}
    {"t":3,"event":"transition","job":"d","queue":"net","from":"ready","to":"executing","attempt":1,"pids":[14]}
    {"t":3.5,"event":"transition","job":"d","queue":"net","from":"executing","to":"finished","attempt":1,"outcome":"succeeded","exit_code":0,"signal":null,"duration":0.5}
    {"t":3.6,"event":"run-finished","exit_code":1,"counts":{"succeeded":3,"failed":1,"cancelled":1,"skipped":0,"timed-out":0}}

    """

  static func recorded(lines: Int? = nil) -> RecordedRun {
    var text = run
    if let lines { text = run.split(separator: "\n").prefix(lines).joined(separator: "\n") + "\n" }
    return RecordedRun(eventLines: Array(text.utf8))
  }

  /// (job, attempt, row, state) of every bar, in the layout's order.
  static func barSummary(_ layout: ReportLayout, _ run: RecordedRun) -> [String] {
    layout.bars.map { "\(run.jobs[$0.job].name) \($0.attempt) row\($0.row) \($0.state)" }
  }

  @Test func everyAttemptIsABarOnTheLowestLaneOfItsQueueFreeWhenItStarts() {
    let run = Self.recorded()
    let layout = ReportLayout(run)
    #expect(layout.rowCount == 3)
    #expect(layout.queueRows.map(\.firstRow) == [0, 2] && layout.queueRows.map(\.lanes) == [2, 1])
    // b's retry waits on lane 2 (a still holds lane 1 at 0.6); c takes lane 1 the moment a ends.
    #expect(
      Self.barSummary(layout, run) == [
        "a 1 row0 succeeded", "c 1 row0 succeeded", "b 1 row1 retried", "b 2 row1 failed", "d 1 row2 succeeded",
      ])
    #expect(layout.bars.allSatisfy { !$0.isOpen })
    #expect(layout.bars.first { run.jobs[$0.job].name == "b" && $0.attempt == 2 }?.exitCode == 3)
  }

  @Test func theCriticalPathFollowsAfterBackFromTheJobThatFinishedLast() {
    let run = Self.recorded()
    #expect(ReportLayout(run).criticalPath.map { run.jobs[$0].name } == ["a", "c", "d"])
  }

  @Test func aRunCutOffKeepsItsRunningAttemptOpenToTheLastLine() throws {
    let run = Self.recorded(lines: 15)
    let layout = ReportLayout(run)
    let open = try #require(layout.bars.first { run.jobs[$0.job].name == "b" && $0.attempt == 2 })
    #expect(open.isOpen && open.state == "running" && open.end == 1)
    let data = try Self.parsedData(of: run)
    #expect(data["complete"] as? Bool == false)
    #expect(data["exit_code"] is NSNull)
    #expect((data["counts"] as? [String: Int])?["succeeded"] == 1)
  }

  @Test func theEmbeddedDataHasEveryJobWithItsOutcomeCancellationAndDependency() throws {
    let data = try Self.parsedData(of: Self.recorded())
    let jobs = try #require(data["jobs"] as? [[String: Any]])
    #expect(jobs.compactMap { $0["name"] as? String } == ["a", "b", "c", "d", Self.hostileName])
    #expect(jobs[1]["outcome"] as? String == "failed" && jobs[1]["exit_code"] as? Int == 3)
    #expect(jobs[2]["after"] as? String == "a")
    let cancelled = try #require(jobs[4]["cancelled"] as? [String: Any])
    #expect(cancelled["reason"] as? String == "control" && cancelled["t"] as? Double == 0.15)
    let queues = try #require(data["queues"] as? [[String: Any]])
    let suspensions = try #require(queues[1]["suspensions"] as? [[String: Double]])
    #expect(suspensions == [["start": 0.1, "end": 0.3]])
    #expect(data["critical_path"] as? [Int] == [0, 2, 3])
    #expect((data["bars"] as? [Any])?.count == 5)
  }

  @Test func noJobNameCanEndTheDataBlockOrOpenATag() throws {
    let page = String(decoding: HTMLReport.page(of: Self.recorded()), as: UTF8.self)
    let template = HTMLReport.template
    #expect(page.components(separatedBy: "</script").count == template.components(separatedBy: "</script").count)
    #expect(!page.contains("<b>x"))
    #expect(!page.contains(HTMLReport.dataSlot))
    #expect(page.contains(#"\u003c/script>\u003cb>x"#))
  }

  static func parsedData(of run: RecordedRun) throws -> [String: Any] {
    let bytes = HTMLReport.data(of: run)
    #expect(!bytes.contains(UInt8(ascii: "<")))
    return try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
  }
}

/// A matrix job's instances are shown together on the page (SPEC §11).
@Suite struct ReportingHTMLReportMatrixTests {
  static let run = """
    {"t":0,"event":"run-started","queues":{"ci":1},"jobs":3,"run":"20261125-000000-2"}
    {"t":0,"event":"transition","job":"t[a]","template":"t","matrix":{"v":"a"},"queue":"ci","from":"pending","to":"ready","attempt":1}
    {"t":0,"event":"transition","job":"lint","queue":"ci","from":"pending","to":"ready","attempt":1}
    {"t":0,"event":"transition","job":"t[b]","template":"t","matrix":{"v":"b"},"queue":"ci","from":"pending","to":"ready","attempt":1}
    {"t":0,"event":"transition","job":"t[a]","template":"t","matrix":{"v":"a"},"queue":"ci","from":"ready","to":"finished","attempt":1,"outcome":"succeeded","exit_code":0,"signal":null,"duration":0}
    {"t":0,"event":"transition","job":"lint","queue":"ci","from":"ready","to":"finished","attempt":1,"outcome":"succeeded","exit_code":0,"signal":null,"duration":0}
    {"t":0,"event":"transition","job":"t[b]","template":"t","matrix":{"v":"b"},"queue":"ci","from":"ready","to":"finished","attempt":1,"outcome":"failed","exit_code":1,"signal":null,"duration":0}
    {"t":0.1,"event":"run-finished","exit_code":1,"counts":{"succeeded":2,"failed":1,"cancelled":0,"skipped":0,"timed-out":0}}

    """

  @Test func eachMatrixJobIsOneGroupOfItsInstances() throws {
    let recorded = RecordedRun(eventLines: Array(Self.run.utf8))
    #expect(recorded.matrices.map(\.template) == ["t"])
    #expect(recorded.matrices.first?.jobs == [0, 2])
    let data = try JSONSerialization.jsonObject(with: Data(HTMLReport.data(of: recorded))) as? [String: Any]
    let matrices = try #require(data?["matrices"] as? [[String: Any]])
    #expect(matrices.count == 1)
    #expect(matrices.first?["template"] as? String == "t")
    #expect(matrices.first?["jobs"] as? [Int] == [0, 2])
    let page = String(decoding: HTMLReport.page(of: recorded), as: UTF8.self)
    #expect(page.contains("<section id=\"matrices\" hidden>"))
  }
}
