import ArgumentParser
import OprunRuntime

/// `oprun log [--json] [MANIFEST | RUN-ID | MANIFEST RUN-ID]`: past runs and their jobs.
struct Log: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "log",
    abstract: "List a manifest's past runs, or the jobs of one run.",
    usage: """
      oprun log [--json] [MANIFEST]
      oprun log [--json] [MANIFEST] RUN-ID
      """,
    discussion: """
      Reads the journals in .oprun/runs/ beside the manifest (default ./jobs.yaml). A lone \
      argument is a manifest when it is an existing file or ends in .yaml or .yml, else a \
      RUN-ID, looked for in ./.oprun/runs/, then in the index of this user's runs \
      ($XDG_STATE_HOME/oprun/journals): a run of any manifest is found from any folder. A \
      run's failures are shown with the last lines of output its journal kept. Exits with \
      status 2 for an unknown manifest or RUN-ID.
      """
  )

  @Argument(
    help: ArgumentHelp("The manifest (default: ./jobs.yaml), a RUN-ID, or both.", valueName: "MANIFEST | RUN-ID"),
    completion: .file(extensions: ["yaml", "yml"]))
  var arguments: [String] = []

  @Flag(help: "Print JSON: a list of runs, or one run's journal lines as {header, jobs, end}.")
  var json = false

  func validate() throws {
    if arguments.count > 2 { throw ValidationError("log takes at most a MANIFEST and a RUN-ID") }
  }

  func run() throws {
    throw ExitCode(LogCommandLine.execute(arguments: arguments, json: json))
  }
}
