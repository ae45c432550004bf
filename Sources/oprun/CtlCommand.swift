import ArgumentParser
import OprunCore
import OprunRuntime

/// `oprun ctl [--pid PID | --manifest PATH] COMMAND [ARG...]`: steer a run in progress.
struct Ctl: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "ctl",
    abstract: "Steer or watch a run in progress.",
    usage: "oprun ctl [--pid PID | --manifest PATH] COMMAND [ARG...]",
    discussion: """
      Sends one request to a run of this user through its control socket. Without --pid or \
      --manifest the request goes to the only run in progress. Exit status: 0 when the run \
      accepted the request, 1 when it refused it (the reason on standard error), 2 for a usage \
      error or when no run can be chosen.
      """,
    subcommands: [
      CtlList.self, CtlStatus.self, CtlCancel.self, CtlCancelAll.self, CtlSuspend.self, CtlResume.self,
      CtlLimit.self, CtlBudget.self, CtlPriority.self, CtlPause.self, CtlContinue.self, CtlWatch.self,
    ]
  )

  @Option(help: ArgumentHelp("The run of oprun process PID.", valueName: "PID"))
  var pid: Int32?

  @Option(
    help: ArgumentHelp("The run of the manifest PATH.", valueName: "PATH"),
    completion: .file(extensions: ["yaml", "yml"]))
  var manifest: String?

  func validate() throws {
    if pid != nil && manifest != nil { throw ValidationError("--pid and --manifest exclude each other") }
    if let pid, pid <= 0 { throw ValidationError("--pid takes a process id") }
  }

  /// `oprun ctl` alone: a usage error, as any missing argument is, with ctl's usage.
  func run() throws {
    let commands = Self.configuration.subcommands.compactMap { $0.configuration.commandName }.joined(separator: ", ")
    throw UsageError(message: "missing COMMAND: one of \(commands)", command: Self.self)
  }

  /// For `oprun ctl … WORD …` where WORD, the first word after ctl's own options, is no
  /// COMMAND: the usage error that names the closest one, or lists them. ArgumentParser would
  /// only say "Unexpected argument".
  static func unknownCommandError(_ arguments: [String]) -> UsageError? {
    var words = arguments.dropFirst()[...]
    while let word = words.first, word.hasPrefix("-") {
      words = words.dropFirst(["--pid", "--manifest"].contains(word) ? 2 : 1)
    }
    let names = configuration.subcommands.compactMap { $0.configuration.commandName }
    guard let word = words.first, !names.contains(word), word != "help" else { return nil }
    let suggestion = Suggestion.closest(to: word, among: names).map(Suggestion.didYouMean)
    return UsageError(
      message: "unknown command '\(word)'" + (suggestion ?? "; the commands are \(names.joined(separator: ", "))"),
      command: Self.self)
  }

  var selection: ControlClient.Selection {
    if let pid { return .pid(pid) }
    if let manifest { return .manifest(manifest) }
    return .only
  }
}

/// What every `ctl` subcommand does once its arguments are valid: one request, its exit status.
protocol CtlRequest: ParsableCommand {
  var ctl: Ctl { get }
  /// The command on the wire.
  static var command: String { get }
  /// The request's arguments, as given.
  var requestArguments: [String] { get }
  var json: Bool { get }
}

extension CtlRequest {
  var json: Bool { false }

  func run() throws {
    let invocation = ControlInvocation(
      selection: ctl.selection, command: Self.command, args: requestArguments, json: json)
    throw ExitCode(ControlCommandLine.execute(invocation))
  }
}
