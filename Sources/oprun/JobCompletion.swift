import ArgumentParser
import OprunRuntime

/// The JOBs a shell completes after `oprun [options] [MANIFEST] [JOB...]`, `oprun graph …` or `oprun list …`:
/// the jobs of the manifest the words before the cursor name, read by oprun itself when the
/// completion script asks (swift-argument-parser's custom completions).
enum JobCompletion {
  /// `words` is the whole command line, `oprun` first, then the subcommand (`run`, which the
  /// scripts add for a bare run, or `graph`); `index` is the word being completed.
  @Sendable static func candidates(words: [String], index: Int, prefix: String) -> [String] {
    var typed = Array(words.prefix(index).dropFirst())
    let command = typed.first
    if command == "run" || command == "graph" || command == "list" { typed.removeFirst() }
    let positionals =
      switch command {
      case "graph": (try? Graph.parse(typed)).map { $0.manifestAndJobs }
      case "list": (try? List.parse(typed)).map { $0.manifestAndJobs }
      default: (try? Run.parse(typed)).map { $0.manifestAndJobs }
      }
    let names = positionals.map(ManifestArguments.jobNames(after:)) ?? []
    // zsh's script hands the names to `_describe`, which reads `name:description`.
    return CompletionShell.requesting == .zsh ? names.map { $0.replacing(":", with: "\\:") } : names
  }
}

extension Run {
  /// The positional words, as `ManifestArguments` reads them.
  var manifestAndJobs: [String] { (manifest.map { [$0] } ?? []) + jobs }
}

extension Graph {
  /// The positional words, as `ManifestArguments` reads them.
  var manifestAndJobs: [String] { (manifest.map { [$0] } ?? []) + jobs }
}
