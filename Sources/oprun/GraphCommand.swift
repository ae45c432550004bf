import ArgumentParser
import OprunRuntime

/// `oprun graph [MANIFEST] [--format dot|mermaid] [--run EVENTS] [JOB...]`: the job graph.
struct Graph: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Print the job graph as Graphviz DOT or a mermaid flowchart; run nothing.",
    usage: "oprun graph [MANIFEST] [--format dot|mermaid] [--run EVENTS] [JOB...]",
    discussion: """
      One cluster per queue, an arrow from each dependency to its dependent; barriers are \
      hexagons and the edges they imply are dashed; run-if always or failure labels the edges \
      into the job. With --run, each job is coloured by how it ended in that run and shows \
      its duration. Render with, for example, `oprun graph | dot -Tsvg > graph.svg`. Exits \
      with status 2 for a manifest with problems, an unknown JOB or an unreadable EVENTS file.
      """
  )

  @Argument(
    help: ArgumentHelp("The manifest (default: ./jobs.yaml).", valueName: "MANIFEST"),
    completion: .file(extensions: ["yaml", "yml"]))
  var manifest: String?

  @Argument(
    help: ArgumentHelp("Show only these jobs and their dependencies.", valueName: "JOB"),
    completion: .custom(JobCompletion.candidates))
  var jobs: [String] = []

  @Option(help: ArgumentHelp("Graphviz DOT or a mermaid flowchart.", valueName: "FORMAT"))
  var format: GraphFormat = .dot

  @Option(
    name: .customLong("run"),
    help: ArgumentHelp("Colour the jobs by a run's outcomes, from its --events file.", valueName: "EVENTS"))
  var events: String?

  func run() throws {
    throw ExitCode(
      GraphCommandLine.execute(words: manifestAndJobs, format: format, eventsPath: events))
  }
}

extension GraphFormat: ExpressibleByArgument {}
