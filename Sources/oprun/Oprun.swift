import ArgumentParser
import OprunCore
import OprunRuntime

@main
struct Oprun: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "oprun",
    abstract: "Run a YAML job graph with operation-queue semantics.",
    usage: """
      oprun [options] [MANIFEST] [JOB...]
      oprun check [MANIFEST]
      oprun list [--json] [MANIFEST] (or oprun -l)
      oprun graph [MANIFEST] [--format dot|mermaid] [--run EVENTS] [JOB...]
      oprun report EVENTS --html OUT
      oprun ctl [--pid PID | --manifest PATH] COMMAND [ARG...]
      oprun log [--json] [MANIFEST | RUN-ID]
      """,
    discussion: """
      Runs MANIFEST (default ./jobs.yaml): every job becomes an operation in a \
      priority-ordered queue and every lifecycle transition is printed as it happens. \
      Name JOBs to run only them and their dependencies. See `oprun help run` for the \
      options of a run, and man oprun(1).
      """,
    version: oprunVersion,
    subcommands: [Run.self, Check.self, List.self, Graph.self, Report.self, Ctl.self, Log.self, Cache.self],
    defaultSubcommand: Run.self
  )

  /// Parses, runs, and maps ArgumentParser's usage errors to oprun's usage status (2).
  static func main() {
    var arguments = CommandLine.arguments.dropFirst()
    // `oprun -l [MANIFEST]`, as `just -l` and `task -l` list their recipes and tasks.
    if let first = arguments.first, first == "-l" || first == "--list" {
      arguments = ["list"] + arguments.dropFirst()
    }
    if let plainRun = PlainRunArguments(Array(arguments)) {
      exitProcess(RunCommandLine.execute(plainRun.configuration))
    }
    if arguments == ["--version"] {
      // What ArgumentParser prints, without its reflection over every command first.
      print(oprunVersion)
      return
    }
    if isPlainHelpRequest(arguments) {
      print(Run.helpMessage() + "\n" + commandsHelp)
      return
    }
    if let script = completionScriptRequest(arguments) {
      print(script, terminator: "")
      return
    }
    if arguments.first == "ctl", let unknown = Ctl.unknownCommandError(Array(arguments)) {
      writeToStandardError(unknown.text)
      exitProcess(ExitStatus.usage)
    }
    do {
      var command = try parseAsRoot(Array(arguments))
      try command.run()
    } catch let exitCode as ExitCode {
      // A run's own status: nothing to say, and ArgumentParser's message lookup would cost
      // a millisecond of reflection.
      exitProcess(exitCode.rawValue)
    } catch let usage as UsageError {
      writeToStandardError(usage.text)
      exitProcess(ExitStatus.usage)
    } catch {
      let code = exitCode(for: error)
      if code == .success {
        exit(withError: error)
      }
      // A run's errors would send the reader to `oprun run --help`, which no help mentions:
      // a run's help is `oprun --help`.
      let message = fullMessage(for: error).replacing("'oprun run --help'", with: "'oprun --help'")
      if !message.isEmpty { writeToStandardError(message + "\n") }
      exitProcess(code == .validationFailure ? ExitStatus.usage : code.rawValue)
    }
  }

  /// Every error, ArgumentParser's included, is said as oprun says its own.
  static var _errorPrefix: String { "oprun: error: " }

  /// `oprun -h`, `oprun --help`, `oprun help`: the help of a run, which is what people type
  /// oprun for, followed by the other commands.
  static func isPlainHelpRequest(_ arguments: ArraySlice<String>) -> Bool {
    arguments.count == 1 && ["-h", "--help", "help"].contains(arguments.first!)
  }

  /// `--generate-completion-script SHELL` (or `=SHELL`): oprun's own scripts, which complete a
  /// run without its `run`; nil for anything else, an unknown shell included, which
  /// ArgumentParser then answers.
  static func completionScriptRequest(_ arguments: ArraySlice<String>) -> String? {
    let option = "--generate-completion-script"
    let words = Array(arguments)
    if words.count == 2, words[0] == option { return CompletionScripts.script(for: words[1]) }
    if words.count == 1, words[0].hasPrefix(option + "=") {
      return CompletionScripts.script(for: String(words[0].dropFirst(option.count + 1)))
    }
    return nil
  }

  static let commandsHelp = """
    COMMANDS:
      check [MANIFEST]        Check a manifest and report every problem in it; run nothing.
      list [MANIFEST]         List the jobs with their descriptions (also -l; --json for scripts).
      graph [MANIFEST] [JOB...]
                              Print the job graph (--format dot|mermaid), coloured by a run
                              with --run EVENTS.
      report EVENTS --html OUT
                              Make a self-contained HTML page of a run from its --events file.
      ctl COMMAND [ARG...]    Steer or watch a run in progress: list, status, cancel, cancel-all,
                              suspend, resume, limit, budget, priority, pause, continue, watch.
      log [MANIFEST | RUN-ID] List a manifest's past runs, or the jobs of one run.

      See 'oprun help check', 'oprun help list', 'oprun help graph', 'oprun help report', 'oprun help ctl', 'oprun help log'
      and man oprun(1).
    """
}
