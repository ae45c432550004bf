import ArgumentParser

/// A usage error a command finds once parsed (`oprun ctl` without a COMMAND), said as
/// ArgumentParser says its own: the problem, that command's usage, and the help to read.
struct UsageError: Error {
  var message: String
  /// A subcommand of `oprun`.
  var command: ParsableCommand.Type

  var text: String {
    let name = command.configuration.commandName ?? ""
    return """
      oprun: error: \(message)
      Usage: \(Oprun.usageString(for: command))
        See 'oprun \(name) --help' for more information.

      """
  }
}
