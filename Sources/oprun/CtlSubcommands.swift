import ArgumentParser
import OprunCore
import OprunRuntime

struct CtlList: CtlRequest {
  static let configuration = CommandConfiguration(
    commandName: "list", abstract: "The runs of this user in progress: pid, run, start, counts, manifest.")
  static let command = "list"
  @ParentCommand var ctl: Ctl
  @Flag(help: "Print a JSON list of their run objects.") var json = false
  var requestArguments: [String] { [] }
}

struct CtlStatus: CtlRequest {
  static let configuration = CommandConfiguration(
    commandName: "status", abstract: "Every queue's limit and suspension, every job's state and outcome.")
  static let command = "status"
  @ParentCommand var ctl: Ctl
  @Flag(help: "Print the run's answer as one JSON object.") var json = false
  var requestArguments: [String] { [] }
}

struct CtlCancel: CtlRequest {
  static let configuration = CommandConfiguration(
    commandName: "cancel", abstract: "Cancel these jobs alone (Operation.cancel()).")
  static let command = "cancel"
  @ParentCommand var ctl: Ctl
  @Argument(help: ArgumentHelp("The jobs to cancel.", valueName: "JOB")) var jobs: [String] = []
  var requestArguments: [String] { jobs }
  func validate() throws { try requireSome(jobs, "JOB") }
}

struct CtlCancelAll: CtlRequest {
  static let configuration = CommandConfiguration(
    commandName: "cancel-all", abstract: "Cancel every job of these queues (default: all), as Ctrl-C does.")
  static let command = "cancel-all"
  @ParentCommand var ctl: Ctl
  @Argument(help: ArgumentHelp("The queues (default: every queue).", valueName: "QUEUE")) var queues: [String] = []
  var requestArguments: [String] { queues }
}

struct CtlSuspend: CtlRequest {
  static let configuration = CommandConfiguration(
    commandName: "suspend", abstract: "Start nothing new on these queues (default: all); running jobs go on.")
  static let command = "suspend"
  @ParentCommand var ctl: Ctl
  @Argument(help: ArgumentHelp("The queues (default: every queue).", valueName: "QUEUE")) var queues: [String] = []
  var requestArguments: [String] { queues }
}

struct CtlResume: CtlRequest {
  static let configuration = CommandConfiguration(
    commandName: "resume", abstract: "Resume these suspended queues (default: all).")
  static let command = "resume"
  @ParentCommand var ctl: Ctl
  @Argument(help: ArgumentHelp("The queues (default: every queue).", valueName: "QUEUE")) var queues: [String] = []
  var requestArguments: [String] { queues }
}

struct CtlLimit: CtlRequest {
  static let configuration = CommandConfiguration(
    commandName: "limit", abstract: "Set a queue's max-concurrent while it runs.")
  static let command = "limit"
  @ParentCommand var ctl: Ctl
  @Argument(help: ArgumentHelp("The queue.", valueName: "QUEUE")) var queue: String
  @Argument(help: ArgumentHelp("Its new max-concurrent, a whole number of at least 1.", valueName: "N"))
  var limit: String
  var requestArguments: [String] { [queue, limit] }

  func validate() throws {
    guard let number = Int(limit), number >= 1 else {
      throw ValidationError("N takes a whole number of at least 1, not '\(limit)'")
    }
  }
}

struct CtlBudget: CtlRequest {
  static let configuration = CommandConfiguration(
    commandName: "budget",
    abstract: "Change what running jobs' declared resources may add up to, while the run runs (either part).")
  static let command = "budget"
  @ParentCommand var ctl: Ctl
  @Argument(help: ArgumentHelp("The new budget, e.g. cpus=8,memory=16G.", valueName: "BUDGET"))
  var budget: String
  var requestArguments: [String] { [budget] }

  func validate() throws {
    if case .failure(let error) = BudgetArgument.parse(budget) { throw ValidationError("\(error)") }
  }
}

struct CtlPriority: CtlRequest {
  static let configuration = CommandConfiguration(
    commandName: "priority", abstract: "Change the priority of a job that has not started.",
    usage: "oprun ctl priority JOB LEVEL")
  static let command = "priority"
  @ParentCommand var ctl: Ctl
  /// JOB and LEVEL; a negative LEVEL (`-4`) would otherwise be taken for an option.
  @Argument(
    parsing: .allUnrecognized,
    help: ArgumentHelp(
      "The job, then its new priority: veryLow, low, normal, high, veryHigh (or -8, -4, 0, 4, 8).",
      valueName: "JOB LEVEL"))
  var values: [String] = []
  var requestArguments: [String] { values }

  func validate() throws {
    guard values.count == 2 else { throw ValidationError("priority takes a JOB and a LEVEL") }
    if Priority(level: values[1]) == nil { throw ValidationError(Priority.unknownLevel(values[1])) }
  }
}

struct CtlPause: CtlRequest {
  static let configuration = CommandConfiguration(
    commandName: "pause", abstract: "Stop these executing jobs' processes (SIGSTOP); they keep their slots.")
  static let command = "pause"
  @ParentCommand var ctl: Ctl
  @Argument(help: ArgumentHelp("The jobs to pause.", valueName: "JOB")) var jobs: [String] = []
  var requestArguments: [String] { jobs }
  func validate() throws { try requireSome(jobs, "JOB") }
}

struct CtlContinue: CtlRequest {
  static let configuration = CommandConfiguration(
    commandName: "continue", abstract: "Continue these paused jobs (SIGCONT).")
  static let command = "continue"
  @ParentCommand var ctl: Ctl
  @Argument(help: ArgumentHelp("The jobs to continue.", valueName: "JOB")) var jobs: [String] = []
  var requestArguments: [String] { jobs }
  func validate() throws { try requireSome(jobs, "JOB") }
}

struct CtlWatch: CtlRequest {
  static let configuration = CommandConfiguration(
    commandName: "watch", abstract: "Follow the run: its events so far, then each one as it happens.")
  static let command = "watch"
  @ParentCommand var ctl: Ctl
  @Flag(help: "Print the events as NDJSON, as --events writes them, job output included.") var json = false
  var requestArguments: [String] { [] }
}

/// A usage error unless at least one `name` was given.
private func requireSome(_ values: [String], _ name: String) throws {
  if values.isEmpty { throw ValidationError("missing \(name): name at least one") }
}
