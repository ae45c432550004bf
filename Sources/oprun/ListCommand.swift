import ArgumentParser
import OprunRuntime

/// `oprun list [MANIFEST] [JOB...] [--json]` (also `oprun -l`): the jobs of a manifest.
struct List: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "list",
    abstract: "List a manifest's jobs with their descriptions; run nothing.",
    usage: "oprun list [--json] [MANIFEST] [JOB...]",
    discussion: """
      Every job in manifest order with its description, its queue (when not the main one), \
      the jobs it depends on, a matrix job's count of instances, and `up to date` for a job \
      whose files say so, as `oprun -n` decides it. Jobs of an included manifest are listed \
      under their prefix (PREFIX:JOB). Named JOBs list only them and their dependencies. \
      Exits with status 2 if the manifest has any problem.
      """
  )

  @Argument(
    help: ArgumentHelp("The manifest (default: ./jobs.yaml).", valueName: "MANIFEST"),
    completion: .file(extensions: ["yaml", "yml"]))
  var manifest: String?

  @Argument(
    help: ArgumentHelp("List only these jobs and their dependencies.", valueName: "JOB"),
    completion: .custom(JobCompletion.candidates))
  var jobs: [String] = []

  @Flag(
    help: """
      Print JSON: {"manifest", "jobs": [{"name", "description", "queue", "dependencies", "instances", \
      "up_to_date"}]}.
      """)
  var json = false

  func run() throws {
    throw ExitCode(ListCommandLine.execute(words: manifestAndJobs, json: json))
  }
}

extension List {
  /// The positional words, as `ManifestArguments` reads them.
  var manifestAndJobs: [String] { (manifest.map { [$0] } ?? []) + jobs }
}
