import Glibc
import OprunCore

/// The listings of files that journal records name by digest (SPEC §10), one file each: a
/// header line, then the bytes of a ``FileListing``, whose SHA-256 is the digest that names the
/// file. Every record's inputs are kept in `.oprun/inputs/`, the outputs of a record that has
/// more than ``RecordedOutputs/listedLimit`` of them in `.oprun/outputs/`. A record holds only
/// the digest, and a listing is read back only when the files now have another digest: inputs
/// to say which one was added, removed or changed, outputs likewise. A listing that is gone or
/// of another layout only makes that reason vaguer ("its inputs changed").
public struct FileListings: Sendable {
  /// Which files a folder of listings lists.
  public enum Kind: Sendable {
    case inputs
    case outputs
  }

  /// The `.oprun/` it is in.
  public let state: StateFolder
  public let kind: Kind
  /// `.oprun/inputs` or `.oprun/outputs` beside the manifest.
  public var path: String { kind == .inputs ? state.inputs : state.outputs }
  /// A listing longer than this is not read back (400,000 outputs of 100-byte paths take 70 MB).
  static let maximumSize = 256 << 20
  /// What a listing of this layout starts with.
  private var header: [UInt8] { kind == .inputs ? Self.inputsHeader : Self.outputsHeader }
  private static let inputsHeader = Array("oprun inputs 2\n".utf8)
  private static let outputsHeader = Array("oprun outputs 1\n".utf8)

  /// The listings of `kind` of the manifest named `manifestPath`, as it was given.
  public init(_ kind: Kind, manifestPath: String) {
    self.init(kind, state: StateFolder.resolved(manifestPath: manifestPath))
  }

  /// The listings of `kind` in `state`.
  init(_ kind: Kind, state: StateFolder) {
    self.state = state
    self.kind = kind
  }

  /// The listing kept under `digest`; nil when there is none, or it cannot be read or is of
  /// another layout.
  public func listing(digest: String) -> FileListing? {
    guard Self.isDigest(digest),
      case .success(var bytes) = FileContents.read(
        path: path + "/" + digest, limit: Self.maximumSize, regularOnly: true),
      bytes.starts(with: header)
    else { return nil }
    bytes.removeFirst(header.count)
    return FileListing(bytes: bytes)
  }

  /// Keeps `listing` under `digest`, unless it is kept already; written whole or not at all,
  /// to a file of a name no one can foresee, renamed into place.
  public func keep(_ listing: FileListing, digest: String) -> Bool {
    guard Self.isDigest(digest) else { return false }
    let file = path + "/" + digest
    if startsWithHeader(file) { return true }
    guard case .success = state.makeFolder(path),
      let (descriptor, temporary) = state.createTemporaryFile(in: path, prefix: "." + digest + ".")
    else { return false }
    var failure = header.withUnsafeBytes { writeWhole(descriptor, $0) }
    if failure == 0 { failure = listing.bytes.withUnsafeBytes { writeWhole(descriptor, $0) } }
    close(descriptor)
    guard failure == 0, rename(temporary, file) == 0 else {
      unlink(temporary)
      return false
    }
    return true
  }

  /// Whether `file` is there and of this layout: one of an earlier layout is written again.
  private func startsWithHeader(_ file: String) -> Bool {
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
