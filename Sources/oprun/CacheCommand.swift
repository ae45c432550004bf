import ArgumentParser
import OprunRuntime

/// `oprun cache stats|clean`: a folder cache of outputs (SPEC §14).
struct Cache: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "cache",
    abstract: "Show what a folder cache of outputs holds, or empty it.",
    discussion: """
      The cache is the one a run would use: --cache, else OPRUN_CACHE, else the manifest's \
      `cache` (default manifest: ./jobs.yaml). A server's cache is the server's to show and trim.
      """,
    subcommands: [Stats.self, Clean.self]
  )

  /// Which cache, as a run is told.
  struct Location: ParsableArguments {
    @Option(
      help: ArgumentHelp("The cache folder (over OPRUN_CACHE and the manifest's cache).", valueName: "PATH"),
      completion: .directory)
    var cache: String?

    @Argument(
      help: ArgumentHelp("The manifest whose cache to use (default: ./jobs.yaml).", valueName: "MANIFEST"),
      completion: .file(extensions: ["yaml", "yml"]))
    var manifest: String?
  }

  struct Stats: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Entries, blobs and size of the cache, and the hits and misses of its last runs.")

    @OptionGroup var location: Location

    @Flag(
      help: """
        Print JSON: {"cache", "entries", "blobs", "bytes", "max_size", "runs": [{"time", "hits", "misses", \
        "stored"}]}, runs newest first.
        """)
    var json = false

    func run() throws {
      throw ExitCode(
        CacheCommandLine.stats(
          cache: location.cache, manifestWords: location.manifest.map { [$0] } ?? [], json: json))
    }
  }

  struct Clean: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Remove every entry and blob of the cache, or the least recently used beyond --keep.")

    @OptionGroup var location: Location

    @Option(help: ArgumentHelp("Keep the most recently used, up to this size (512M, 2G).", valueName: "SIZE"))
    var keep: String?

    func run() throws {
      throw ExitCode(
        CacheCommandLine.clean(cache: location.cache, manifestWords: location.manifest.map { [$0] } ?? [], keep: keep))
    }
  }
}
