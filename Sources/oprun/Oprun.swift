import ArgumentParser
import OprunRuntime

@main
struct Oprun: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "oprun",
    abstract: "Run a YAML job graph with operation-queue semantics.",
    version: oprunVersion,
    subcommands: [Check.self]
  )

  func run() throws {}
}
