import Foundation
import Testing

/// `oprun report EVENTS --html OUT` (SPEC §4), opened in headless Chromium.
@Suite struct ReportTests {
  /// Makes the page of the folder's events file and reads it back as Chromium left it.
  static func reportPage(in folder: Scratch) throws -> DumpedPage {
    let report = try runOprun(["report", eventsFile, "--html", "report.html"], in: folder)
    #expect(report.status == 0, "\(report.stderr)")
    let page = DumpedPage(html: try HeadlessChromium.dumpDOM(of: folder.path("report.html"), in: folder))
    #expect(page.rootAttribute("data-ready") == "1", "the page's script did not finish")
    #expect(page.rootAttribute("data-errors") == nil, "\(page.rootAttribute("data-errors") ?? "")")
    return page
  }

  @Test func theDemosPageHasARowAndATimelineBarForEveryJob() throws {
    let folder = try FixtureTests.scratchWithFixture("demo.yaml")
    let run = try runOprun(runArguments(manifest: "demo.yaml"), in: folder)
    #expect(run.status == 0, "\(run.stderr)")
    let jobs = Set(folder.events.named("transition").compactMap { $0["job"] as? String })
    #expect(jobs.count == 11)

    let page = try Self.reportPage(in: folder)
    // Self-contained: nothing is loaded from anywhere.
    let file = try #require(folder.read("report.html"))
    #expect(!file.contains("://") && !file.contains(" src=") && !file.contains("<link"))
    #expect(Set(page.jobs(inTagsStartingWith: "<div class=\"row body")) == jobs)
    #expect(Set(page.jobs(inTagsStartingWith: "<li data-job=")) == jobs)
    #expect(page.text(ofElementWithID: "status") == "exit status 0")
    // The critical path ends with the job that finished last and starts with prepare.
    #expect(page.html.contains("id=\"critical-path\"><a class=\"job\" href=\"#timeline\" data-job=\"prepare\">"))

    try HeadlessChromium.screenshot(of: folder.path("report.html"), to: folder.path("report.png"), in: folder)
    let png = try #require(FileManager.default.contents(atPath: folder.path("report.png")))
    #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]) && png.count > 10_000)
  }

  @Test func aHostileJobNameIsShownAsText() throws {
    let folder = try Scratch()
    let name = "</script><b>x \"quoted\" 'single' & é 🚀"
    try folder.write(
      "jobs.yaml",
      """
      jobs:
        '</script><b>x "quoted" ''single'' & é 🚀':
          command: exit 3
        after:
          command: "true"
          dependencies: ['</script><b>x "quoted" ''single'' & é 🚀']
          run-if: always
      """)
    let run = try runOprun(runArguments(["-k"]), in: folder)
    #expect(run.status == 1, "\(run.stderr)")

    let page = try Self.reportPage(in: folder)
    #expect(page.jobs(inTagsStartingWith: "<div class=\"row body").contains(name))
    #expect(page.jobs(inTagsStartingWith: "<li data-job=").contains(name))
    // Listed among the failures, as text: no <b> element came from it.
    #expect(page.html.contains("&lt;/script&gt;&lt;b&gt;x \"quoted\" 'single' &amp; é 🚀</a> — failed, exit 3"))
    #expect(!page.html.contains("<b>"))
  }

  @Test func aRunKilledMidwayStillGetsAPageThatSaysItWasCutOff() throws {
    let folder = try Scratch()
    try folder.write(
      "jobs.yaml",
      """
      jobs:
        first: {command: "true"}
        long: {command: sleep 60, dependencies: [first]}
      """)
    let oprun = try OprunProcess(runArguments(), in: folder)
    try folder.waitUntilExecuting("long")
    oprun.send(SIGKILL)
    _ = oprun.wait()
    #expect(folder.events.named("run-finished").isEmpty)

    let page = try Self.reportPage(in: folder)
    #expect(page.text(ofElementWithID: "status") == "cut off")
    #expect(page.html.contains("Cut off: the events file ends without run-finished"))
    #expect(page.html.contains("<li data-job=\"long\" data-attempt=\"1\" data-state=\"running\""))
  }

  @Test func anEventsFileThatIsMissingOrHoldsNoEventIsAnErrorAndWritesNothing() throws {
    let folder = try Scratch()
    let missing = try runOprun(["report", "nothing.ndjson", "--html", "out.html"], in: folder)
    #expect(missing.status == 2)
    #expect(missing.stderr.contains("oprun: error: cannot read the events file 'nothing.ndjson'"), "\(missing.stderr)")
    try folder.write("empty.ndjson", "not an event\n")
    let empty = try runOprun(["report", "empty.ndjson", "--html", "out.html"], in: folder)
    #expect(empty.status == 2)
    #expect(empty.stderr.contains("no events in 'empty.ndjson'"), "\(empty.stderr)")
    #expect(!folder.exists("out.html"))
    let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.url.path)
    #expect(!leftovers.contains { $0.hasPrefix("out.html") })
  }
}
