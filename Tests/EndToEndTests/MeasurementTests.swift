import Foundation
import Testing

/// What every local job used (SPEC §12), measured from the kernel's accounting of its reaped
/// processes, as each view shows it. The figures are checked against ranges wide enough for a
/// loaded machine: CPU time is the CPU the job burned, not the time it took.
@Suite struct MeasurementTests {
  /// Burns half a second of CPU time (user and system), however long that takes.
  static let burn = """
    import time
    start = time.process_time()
    while time.process_time() - start < 0.5:
        pass

    """
  static let manifest = """
    jobs:
      burn: {command: /usr/bin/python3 burn.py}
      big: {command: "/usr/bin/python3 -c 's = b\\"x\\" * (150 << 20)'"}
      small: {command: 'true'}

    """
  static let megabyte = 1 << 20

  /// The run, with its events and trace.
  static func measuredRun() throws -> (folder: Scratch, run: Finished) {
    let folder = try Scratch()
    try folder.write("burn.py", burn)
    try folder.manifest(manifest)
    let run = try runOprun(runArguments(["--trace", "trace.json", "-j", "1"]), in: folder)
    #expect(run.status == 0, "\(run.stderr)")
    return (folder, run)
  }

  @Test func aJobsCPUTimeAndPeakMemoryAreInItsFinishedEvent() throws {
    let (folder, run) = try Self.measuredRun()
    let log = folder.events
    let burn = try #require(log.finish(of: "burn"))
    let cpu = try #require(burn.double("cpu_s"))
    #expect(cpu >= 0.4 && cpu <= 1.5, "cpu_s \(cpu)")
    #expect(burn.string("memory_source") == "process")
    let big = try #require(log.finish(of: "big"))
    let peak = try #require(big.int("peak_memory"))
    #expect(peak >= 150 * Self.megabyte && peak <= 300 * Self.megabyte, "peak_memory \(peak)")
    let small = try #require(log.finish(of: "small")?.int("peak_memory"))
    #expect(small > 0 && small < 100 * Self.megabyte)
    // The summary names the heaviest jobs, `big` first.
    let heaviest = try #require(run.stdout.split(separator: "\n").first { $0.hasPrefix("── heaviest: ") })
    #expect(heaviest.hasPrefix("── heaviest: big 1") && heaviest.contains(" MB · "), "\(heaviest)")
  }

  @Test func theJournalTheLogAndTheTraceHaveTheFigures() throws {
    let (folder, _) = try Self.measuredRun()
    let runID = try #require(folder.events.named("run-started").first?.string("run"))
    let log = try runOprun(["log", runID], in: folder)
    #expect(log.status == 0, "\(log.stderr)")
    let lines = log.stdout.split(separator: "\n")
    let columns = lines.dropFirst().first?.split(separator: " ") ?? []
    #expect(columns.contains("CPU") && columns.contains("MEMORY"), "\(log.stdout)")
    let big = try #require(lines.first { $0.hasPrefix("big ") })
    #expect(big.contains(" MB "), "\(big)")
    let json = try runOprun(["log", "--json", runID], in: folder)
    let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
    let jobs = try #require(object["jobs"] as? [[String: Any]])
    let burn = try #require(jobs.first { $0.string("job") == "burn" })
    #expect((burn.double("cpu_s") ?? 0) >= 0.4 && burn.string("memory_source") == "process", "\(burn)")
    let trace = try #require(
      try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder.path("trace.json"))))
        as? [String: Any])
    let slices = (trace["traceEvents"] as? [[String: Any]] ?? []).filter { $0.string("ph") == "X" }
    let bigSlice = try #require(slices.first { $0.string("name") == "big" }?["args"] as? [String: Any])
    #expect((bigSlice.int("peak_memory") ?? 0) >= 150 * Self.megabyte, "\(bigSlice)")
  }

  @Test func theReportHasAMemoryColumnAndMemoryInUseUnderTheTimeline() throws {
    let (folder, _) = try Self.measuredRun()
    let report = try runOprun(["report", eventsFile, "--html", "report.html"], in: folder)
    #expect(report.status == 0, "\(report.stderr)")
    let sortByMemory = """
      document.querySelector("[data-sort=memory]").click();
      var rows = Array.from(document.querySelectorAll("#table-body .row.body"))
        .sort(function (a, b) { return a.offsetTop - b.offsetTop; });
      document.documentElement.setAttribute("data-heaviest", rows[0].getAttribute("data-job"));
      document.documentElement.setAttribute("data-strip-shown", String(!document.getElementById("memory-strip").hidden));
      document.documentElement.setAttribute("data-memory-peak", document.getElementById("memory-canvas").getAttribute("data-peak"));
      """
    let page = DumpedPage(
      html: try HeadlessChromium.dumpDOM(of: folder.path("report.html"), after: sortByMemory, in: folder))
    #expect(page.rootAttribute("data-ready") == "1", "the page's script did not finish")
    #expect(page.rootAttribute("data-errors") == nil, "\(page.rootAttribute("data-errors") ?? "")")
    #expect(page.rootAttribute("data-heaviest") == "big")
    #expect(page.rootAttribute("data-strip-shown") == "true")
    let peak = try #require(page.rootAttribute("data-memory-peak").flatMap { Int($0) })
    #expect(peak >= 150 * Self.megabyte && peak <= 400 * Self.megabyte, "memory strip peak \(peak)")
  }
}
