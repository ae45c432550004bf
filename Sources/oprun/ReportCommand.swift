import ArgumentParser
import OprunRuntime

/// `oprun report EVENTS --html OUT`: a self-contained HTML page of a recorded run.
struct Report: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Make a self-contained HTML page of a run from its --events file.",
    usage: "oprun report EVENTS --html OUT",
    discussion: """
      The page needs no network: a summary, the failures, a Gantt timeline of every queue's \
      lanes with the critical path, and every job's details. A run cut off before its end \
      (no run-finished line) still gets a page, which says so. Exits with status 2, writing \
      nothing, if EVENTS cannot be read or holds no event.
      """
  )

  @Argument(help: ArgumentHelp("The events file a run wrote with --events.", valueName: "EVENTS"))
  var events: String

  @Option(help: ArgumentHelp("Where to write the page.", valueName: "OUT"))
  var html: String

  func run() throws {
    throw ExitCode(ReportCommandLine.execute(events: events, html: html))
  }
}
