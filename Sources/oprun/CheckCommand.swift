import ArgumentParser
import OprunCore
import OprunRuntime

/// `oprun check [MANIFEST]`: validate a manifest and run nothing.
struct Check: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "check",
    abstract: "Check a manifest and report every problem in it; run nothing.",
    usage: "oprun check [MANIFEST] [NAME=value...]",
    discussion: """
      Exits with status 2 if the manifest has any problem. Warns about each input pattern that \
      matches no file now, in a job that waits for no other job.
      """
  )

  @Argument(
    help: ArgumentHelp(
      "The manifest to check (default: ./jobs.yaml), and variables for ${{ vars.NAME }}.",
      valueName: "MANIFEST | NAME=VALUE"),
    completion: .file(extensions: ["yaml", "yml"]))
  var words: [String] = []

  func validate() throws {
    if VariableArgument.split(words).others.count > 1 { throw ValidationError("check takes one MANIFEST") }
  }

  func run() throws {
    let (variables, others) = VariableArgument.split(words)
    let manifest = others.first ?? ManifestFile.defaultPath
    switch ManifestFile.graph(path: manifest, variables: variables, defaultMaxConcurrent: 1) {
    case .success(let graph):
      for warning in graph.manifestWarningLines + UnmatchedInputs.warningLines(in: graph) {
        writeToStandardError("oprun: warning: \(warning)\n")
      }
      print("\(manifest): \(counted(graph.jobs.count, "job")) in \(counted(graph.queues.count, "queue")), OK")
    case .failure(let errors):
      writeToStandardError(errors.text)
      throw ExitCode(ExitStatus.usage)
    }
  }
}
