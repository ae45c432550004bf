import Glibc
import OprunCore

/// The listings of inputs that journal records name by digest (SPEC §10), one file each in
/// `.oprun/inputs/`, laid out as ``FileListing`` lays them out: a record holds only its
/// inputs' digest, and the listing is read back only when the digest differs, to say which
/// input was added, removed or changed. A listing that is gone only makes that reason vaguer
/// ("its inputs changed").
public struct InputListings: Sendable {
  /// `.oprun/inputs` beside the manifest.
  public let path: String
  /// A listing longer than this is not read back.
  static let maximumSize = 256 << 20

  public init(manifestPath: String) {
    let folder = PathParts.folder(of: manifestPath)
    path = (folder == "/" ? "" : folder) + "/.oprun/inputs"
  }

  /// The listing kept under `digest`; nil when there is none or it cannot be read.
  public func listing(digest: String) -> FileListing? {
    guard Self.isDigest(digest),
      case .success(let bytes) = FileContents.read(path: path + "/" + digest, limit: Self.maximumSize, regularOnly: true)
    else { return nil }
    return FileListing(bytes: bytes)
  }

  /// Keeps `files` under `digest`, unless it is kept already; written whole or not at all.
  public func keep(_ files: [FileRecord], digest: String) -> Bool {
    guard Self.isDigest(digest) else { return false }
    let file = path + "/" + digest
    if access(file, F_OK) == 0 { return true }
    let oprun = String(path.dropLast("/inputs".count))
    for folder in [oprun, path] where mkdir(folder, 0o755) != 0 && errno != EEXIST { return false }
    let temporary = file + ".\(getpid()).part"
    let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else { return false }
    let failure = FileListing(files).bytes.withUnsafeBytes { writeWhole(descriptor, $0) }
    close(descriptor)
    guard failure == 0, rename(temporary, file) == 0 else {
      unlink(temporary)
      return false
    }
    return true
  }

  /// Removes the listing kept under `digest`, when no record needs it any more.
  public func remove(digest: String) {
    guard Self.isDigest(digest) else { return }
    unlink(path + "/" + digest)
  }

  /// 64 lower-case hex digits: nothing else names a file here.
  static func isDigest(_ text: String) -> Bool {
    text.utf8.count == 64 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
  }
}
