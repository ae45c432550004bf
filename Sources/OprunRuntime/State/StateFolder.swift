import OprunCore

/// A manifest's `.oprun/` and where each thing in it lives (SPEC §9, §10): the one place
/// that spells its layout. Every reader and writer of `.oprun/` finds its files here.
///
/// - `runs/`: the journals, one per run;
/// - `inputs/`: the listings of inputs that journal records name by digest;
/// - `outputs/`: the listings of outputs that records of jobs with many name by digest;
/// - `hashes`: the hash cache;
/// - `locks/`: one lock file per job with outputs that a run has run, which a run holds while
///   it decides, runs and records that job, so that two runs never run it at once;
/// - `slurm/RUN-ID/`: the output of a Slurm run's jobs.
public struct StateFolder: Sendable, Equatable {
  /// The folder's name, in the manifest's folder.
  public static let name = ".oprun"

  /// `.oprun` in the manifest's folder, spelt from the manifest's path as given: relative
  /// when it is (as messages show it), never with a doubled `/` (a manifest at `/`).
  public let path: String

  /// The `.oprun` of the manifest at `manifestPath`.
  public init(manifestPath: String) {
    self.init(manifestFolder: PathParts.folder(of: manifestPath))
  }

  /// The `.oprun` in `folder`, a manifest's folder.
  public init(manifestFolder folder: String) {
    path = (folder.hasSuffix("/") ? String(folder.dropLast()) : folder) + "/" + Self.name
  }

  /// The `.oprun` of the manifest named `manifestPath`, as an absolute path with the links
  /// of the manifest's folder resolved. The manifest's own link is not followed: a manifest's
  /// state is beside the name it was given, where its jobs run and its files are recorded
  /// from, whatever file that name leads to.
  public static func resolved(manifestPath: String) -> StateFolder {
    StateFolder(manifestFolder: AbsolutePath.of(PathParts.folder(of: manifestPath)))
  }

  /// The state folder that holds the journal `file` (in its ``runs``).
  init(holdingJournal file: String) {
    self.init(path: PathParts.folder(of: PathParts.folder(of: file)))
  }

  /// A state folder at `path` itself, whatever it is called (a cache kept elsewhere).
  public init(path: String) {
    self.path = path
  }

  /// The journals.
  public var runs: String { path + "/runs" }
  /// The listings of inputs, one file per digest.
  public var inputs: String { path + "/inputs" }
  /// The listings of outputs kept apart from their records, one file per digest.
  public var outputs: String { path + "/outputs" }
  /// The locks of jobs between runs, one file per job (``JobLocks``).
  public var locks: String { path + "/locks" }
  /// The hash cache's file.
  public var hashes: String { path + "/hashes" }
  /// The output of the jobs of the Slurm run `run` (its RUN-ID).
  public func slurmOutput(run: String) -> String { path + "/slurm/" + run }
}
