import Glibc
import OprunCore

/// The listings of inputs that journal records name by digest (SPEC §10), one file each in
/// `.oprun/inputs/`: a header line, then the bytes of a ``FileListing``, whose SHA-256 is the
/// digest that names the file. A record holds only its inputs' digest, and the listing is
/// read back only when the digest differs, to say which input was added, removed or changed.
/// A listing that is gone or of another layout only makes that reason vaguer ("its inputs
/// changed").
public struct InputListings: Sendable {
  /// The `.oprun/` it is in.
  public let state: StateFolder
  /// `.oprun/inputs` beside the manifest.
  public var path: String { state.inputs }
  /// A listing longer than this is not read back.
  static let maximumSize = 256 << 20
  /// What a listing of this layout starts with.
  static let header = Array("oprun inputs 2\n".utf8)

  /// The listings of the manifest named `manifestPath`, as it was given.
  public init(manifestPath: String) {
    state = StateFolder.resolved(manifestPath: manifestPath)
  }

  /// The listings in `state`.
  init(state: StateFolder) {
    self.state = state
  }

  /// The listing kept under `digest`; nil when there is none, or it cannot be read or is of
  /// another layout.
  public func listing(digest: String) -> FileListing? {
    guard Self.isDigest(digest),
      case .success(var bytes) = FileContents.read(
        path: path + "/" + digest, limit: Self.maximumSize, regularOnly: true),
      bytes.starts(with: Self.header)
    else { return nil }
    bytes.removeFirst(Self.header.count)
    return FileListing(bytes: bytes)
  }

  /// Keeps `listing` under `digest`, unless it is kept already; written whole or not at all,
  /// to a file of a name no one can foresee, renamed into place.
  public func keep(_ listing: FileListing, digest: String) -> Bool {
    guard Self.isDigest(digest) else { return false }
    let file = path + "/" + digest
    if Self.startsWithHeader(file) { return true }
    guard case .success = state.makeFolder(path),
      let (descriptor, temporary) = state.createTemporaryFile(in: path, prefix: "." + digest + ".")
    else { return false }
    var failure = Self.header.withUnsafeBytes { writeWhole(descriptor, $0) }
    if failure == 0 { failure = listing.bytes.withUnsafeBytes { writeWhole(descriptor, $0) } }
    close(descriptor)
    guard failure == 0, rename(temporary, file) == 0 else {
      unlink(temporary)
      return false
    }
    return true
  }

  /// Whether `file` is there and of this layout: one of an earlier layout is written again.
  private static func startsWithHeader(_ file: String) -> Bool {
    guard case .success(let start) = FileContents.readPrefix(path: file, count: header.count) else {
      return false
    }
    return start == header
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
