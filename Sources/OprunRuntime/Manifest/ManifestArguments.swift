import Glibc
import OprunCore

/// How the words of `oprun [MANIFEST] [JOB...]` and `oprun graph [MANIFEST] [JOB...]` are read
/// (SPEC §4). A `NAME=value` word is a variable (``VariableArgument``); of the others, the first word is the manifest when it can be one — it ends in `.yaml` or `.yml`,
/// or names something that is not a folder — or when there is no `./jobs.yaml`; otherwise every
/// word is a job of `./jobs.yaml`, as `make build` names a target of `./Makefile`.
public struct ManifestArguments: Equatable, Sendable {
  public var manifestPath: String
  /// The jobs named after the manifest; empty for every job.
  public var targets: [String]
  /// Set when the first word names both a file and a job of `./jobs.yaml`: which was taken (the
  /// file), as a warning says it, before anything is read.
  public var ambiguity: String?
  /// The `NAME=value` words (SPEC §15), wherever they are written: over the manifest's `vars`.
  public var variables: [String: String] = [:]

  public init(_ words: [String]) {
    let (variables, words) = VariableArgument.split(words)
    self.variables = variables
    guard let first = words.first else {
      (manifestPath, targets) = (ManifestFile.defaultPath, [])
      return
    }
    let defaultExists = ManifestFile.namesNoFolder(ManifestFile.defaultPath)
    guard ManifestFile.canBe(first) || !defaultExists else {
      (manifestPath, targets) = (ManifestFile.defaultPath, words)
      return
    }
    (manifestPath, targets) = (first, Array(words.dropFirst()))
    if defaultExists, !ManifestFile.hasManifestSuffix(first), Self.defaultManifestHasJob(first) {
      ambiguity =
        "'\(first)' is a file: taken as the manifest, not as the job '\(first)' of ./\(ManifestFile.defaultPath)"
        + " (oprun \(ManifestFile.defaultPath) \(first) runs that job)"
    }
  }

  /// The names a JOB can take after `words` (`[MANIFEST] [JOB...]` as typed so far), for a
  /// shell's completion: the jobs of the manifest they name, matrix instances included, in
  /// manifest order; none when it cannot be read or has problems.
  public static func jobNames(after words: [String]) -> [String] {
    let arguments = ManifestArguments(words)
    guard
      case .success(let graph) = ManifestFile.graph(
        path: arguments.manifestPath, variables: arguments.variables, defaultMaxConcurrent: 1)
    else { return [] }
    return JobNameIndex(graph).givenNames(instances: true)
  }

  /// Read only when a file has the name of a job, which is rare: a manifest with problems has no job.
  private static func defaultManifestHasJob(_ name: String) -> Bool {
    guard case .success(let graph) = ManifestFile.graph(path: ManifestFile.defaultPath, defaultMaxConcurrent: 1)
    else { return false }
    return JobNameIndex(graph).jobs(named: name) != nil
  }
}

extension ManifestFile {
  /// The manifest a command reads when none is named.
  public static let defaultPath = "jobs.yaml"

  /// Whether a command takes `word` for a manifest, where a name of something else (a job, a
  /// RUN-ID) could stand: it ends in `.yaml` or `.yml`, or names something that is not a folder.
  public static func canBe(_ word: String) -> Bool {
    hasManifestSuffix(word) || namesNoFolder(word)
  }

  /// Whether something is at `path`, and is not a folder.
  static func namesNoFolder(_ path: String) -> Bool {
    var status = stat()
    return stat(path, &status) == 0 && status.st_mode & S_IFMT != S_IFDIR
  }

  static func hasManifestSuffix(_ word: String) -> Bool {
    word.hasSuffix(".yaml") || word.hasSuffix(".yml")
  }
}
