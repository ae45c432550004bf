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

  /// 2,000 jobs on two queues: `job-NN50` of every hundred fails and the next one, which
  /// waits for it, is skipped; every twentieth runs on `io`; `job-1999` times out.
  static let twoThousandJobs: String = {
    var text = "on-failure: continue\nmax-concurrent: 8\nqueues:\n  io: {max-concurrent: 2}\njobs:\n"
    for number in 0..<2000 {
      let name = "job-" + String(number + 10000).dropFirst()
      text += "  \(name):\n"
      switch number % 100 {
      case 50: text += "    command: exit 1\n"
      case 51: text += "    command: 'true'\n    dependencies: [job-\(String(number + 9999).dropFirst())]\n"
      default: text += number == 1999 ? "    command: sleep 10\n    timeout: 1s\n" : "    command: 'true'\n"
      }
      if number % 20 == 0 { text += "    queue: io\n" }
    }
    return text
  }()

  /// What a reader does on the page of a 2,000-job run, recorded on the `<html>` element as
  /// `data-step-NAME` (JSON): the rows in the order shown, and the timeline's time window.
  static let readerSteps = """
    function step(name, value) { document.documentElement.setAttribute("data-step-" + name, JSON.stringify(value)); }
    function rows() {
      return Array.from(document.querySelectorAll("#table-body .row.body"))
        .sort(function (a, b) { return a.offsetTop - b.offsetTop; }).map(function (row) { return row.getAttribute("data-job"); });
    }
    function shownWindow() {
      var note = document.getElementById("timeline-window");
      return [Number(note.getAttribute("data-start")), Number(note.getAttribute("data-end")), note.getAttribute("data-modes"),
        Array.from(document.querySelectorAll("#bar-list li[data-job]")).map(function (item) { return item.getAttribute("data-job"); })];
    }
    function type(id, value, event) { var box = document.getElementById(id); box.value = value; box.dispatchEvent(new Event(event)); }
    document.querySelector("[data-sort=duration]").click();
    step("by-duration", rows());
    document.querySelector("[data-sort=duration]").click();
    step("by-duration-again", rows());
    document.querySelector("[data-sort=name]").click();
    type("job-filter", "job-01", "input");
    step("named", rows());
    type("job-filter", "", "input");
    type("outcome-filter", "failed", "change");
    step("failed", rows());
    step("fit", shownWindow());
    for (var click = 0; click < 4; click++) document.getElementById("zoom-in").click();
    step("zoomed-in", shownWindow());
    document.getElementById("zoom-fit").click();
    step("fit-again", shownWindow());
    // A drag along the time axis, from a quarter of the view to its middle.
    var canvas = document.getElementById("canvas"), bounds = canvas.getBoundingClientRect();
    var from = bounds.left + 170 + (bounds.width - 170) / 4, to = bounds.left + 170 + (bounds.width - 170) / 2, y = bounds.top + 10;
    canvas.dispatchEvent(new MouseEvent("mousedown", { clientX: from, clientY: y, bubbles: true }));
    canvas.dispatchEvent(new MouseEvent("mousemove", { clientX: to, clientY: y, bubbles: true }));
    window.dispatchEvent(new MouseEvent("mouseup", { clientX: to, clientY: y, bubbles: true }));
    step("dragged", shownWindow());
    """

  @Test func aReaderSortsFiltersAndZoomsThePageOf2000Jobs() throws {
    let folder = try Scratch()
    try folder.write("jobs.yaml", Self.twoThousandJobs)
    let run = try runOprun(runArguments(), in: folder)
    #expect(run.status == 1, "\(run.stderr)")
    let finished = folder.events.named("transition").filter { $0["to"] as? String == "finished" }
    #expect(finished.count == 2000)
    let durations = finished.map { ($0["job"] as? String ?? "", $0["duration"] as? Double ?? -1) }
    let longest = try #require(durations.max { $0.1 < $1.1 })
    let shortest = try #require(durations.min { $0.1 < $1.1 })
    let failed = Set(finished.filter { $0["outcome"] as? String == "failed" }.compactMap { $0["job"] as? String })
    #expect(failed.count == 20)

    let report = try runOprun(["report", eventsFile, "--html", "report.html"], in: folder)
    #expect(report.status == 0, "\(report.stderr)")
    let page = DumpedPage(
      html: try HeadlessChromium.dumpDOM(of: folder.path("report.html"), after: Self.readerSteps, in: folder))
    #expect(page.rootAttribute("data-ready") == "1", "the page's script did not finish")
    #expect(page.rootAttribute("data-errors") == nil, "\(page.rootAttribute("data-errors") ?? "")")
    func step<T: Decodable>(_ name: String, as type: T.Type) throws -> T {
      let json = try #require(page.rootAttribute("data-step-\(name)"), "no step \(name)")
      return try JSONDecoder().decode(T.self, from: Data(json.utf8))
    }

    // Sorted by duration: the longest first, then, clicked again, the shortest.
    let byDuration = try step("by-duration", as: [String].self)
    #expect(byDuration.count == 2000)
    #expect(byDuration.first == longest.0, "longest \(longest)")
    let again = try step("by-duration-again", as: [String].self)
    #expect(
      durations.first { $0.0 == again.first }?.1 == shortest.1, "shortest \(shortest), first \(again.first ?? "")")
    // Filtered by a part of the name, then by outcome.
    let named = try step("named", as: [String].self)
    #expect(named == (100..<200).map { "job-0\($0)" })
    #expect(Set(try step("failed", as: [String].self)) == failed)
    #expect(try step("failed", as: [String].self).count == 20)

    // Zoomed: the window narrows and the main queue, a band of its density at first, shows
    // its jobs one by one; Fit shows the whole run again; a drag on the axis shows that range.
    struct Window: Decodable {
      var start: Double, end: Double, modes: String, listed: [String]
      init(from decoder: any Decoder) throws {
        var values = try decoder.unkeyedContainer()
        (start, end, modes, listed) = (
          try values.decode(Double.self), try values.decode(Double.self), try values.decode(String.self),
          try values.decode([String].self)
        )
      }
    }
    let fit = try step("fit", as: Window.self)
    let runEnd = try #require(folder.events.named("run-finished").first?["t"] as? Double)
    #expect(fit.start == 0 && abs(fit.end - runEnd) < 0.001, "\(fit.start)–\(fit.end) of \(runEnd)")
    #expect(fit.modes == "density lanes", "\(fit.modes)")
    // Every 20th job is in `io`, the queue drawn as lanes: the whole run lists all 100 and
    // nothing of the main queue's band.
    func inIO(_ job: String) -> Bool { Int(job.dropFirst(4)).map { $0 % 20 == 0 } ?? false }
    #expect(fit.listed.count == 100 && fit.listed.allSatisfy(inIO), "\(fit.listed)")
    let zoomed = try step("zoomed-in", as: Window.self)
    #expect(zoomed.end - zoomed.start < (fit.end - fit.start) / 8, "\(zoomed.start)–\(zoomed.end)")
    #expect(zoomed.modes == "lanes lanes", "\(zoomed.modes)")
    // The main queue runs from the first start to the end: its jobs in the window are listed
    // one by one, and each listed job ran during the window.
    #expect(zoomed.listed.contains { !inIO($0) }, "\(zoomed.listed)")
    let executing = Dictionary(
      folder.events.named("transition").filter { $0["to"] as? String == "executing" }
        .map { ($0["job"] as? String ?? "", $0["t"] as? Double ?? -1) }, uniquingKeysWith: min)
    let ended = Dictionary(finished.map { ($0["job"] as? String ?? "", $0["t"] as? Double ?? -1) }, uniquingKeysWith: max)
    let outside = zoomed.listed.filter { job in
      guard let from = executing[job], let to = ended[job] else { return true }
      return to < zoomed.start - 0.001 || from > zoomed.end + 0.001
    }
    #expect(outside.isEmpty, "listed but not running in \(zoomed.start)–\(zoomed.end): \(outside)")
    let fitAgain = try step("fit-again", as: Window.self)
    #expect(fitAgain.start == fit.start && fitAgain.end == fit.end && fitAgain.modes == fit.modes)
    // The drag went from a quarter of the way along the axis to half-way: the window starts
    // where it began and is as long as that start.
    let dragged = try step("dragged", as: Window.self)
    #expect(
      dragged.start > 0 && abs((dragged.end - dragged.start) - dragged.start) < dragged.start / 20,
      "\(dragged.start)–\(dragged.end)")
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
