import Foundation
import Testing

/// A program a test drives besides oprun (graphviz, chromium, tmux, a shell, man), found on
/// `PATH`; a missing one fails the test with the Debian package to install (`make test-deps`
/// installs them all), never skips it.
struct ExternalTool {
  let path: String

  init(_ name: String, package: String) throws {
    let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
    guard
      let found = folders.map({ "\($0)/\(name)" }).first(where: { FileManager.default.isExecutableFile(atPath: $0) })
    else {
      throw MissingTool(
        description: "this test needs `\(name)`: install the Debian package \(package) (`make test-deps` does)")
    }
    path = found
  }

  /// Runs the tool to its end with `arguments` in `folder`; its outputs go to files there.
  func run(_ arguments: [String], in folder: Scratch, environment: [String: String] = [:]) throws -> Finished {
    try OprunProcess(arguments, in: folder, environment: environment, executable: path).wait()
  }

  /// `run`, for a caller that wants the status and standard output alone.
  func runForOutput(_ arguments: [String], in folder: Scratch) throws -> (status: Int32, output: String) {
    let finished = try run(arguments, in: folder)
    return (finished.status, finished.stdout)
  }
}

struct MissingTool: Error, CustomStringConvertible {
  var description: String
}
