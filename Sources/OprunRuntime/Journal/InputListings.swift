import Glibc
import OprunCore

/// The listings of inputs that journal records name by digest (SPEC §10), one file each in
/// `.oprun/inputs/`: a record holds only its inputs' digest, and the listing is read back only
/// when the digest differs, to say which input was added, removed or changed. A listing that
/// is gone only makes that reason vaguer ("its inputs changed").
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
  public func listing(digest: String) -> [FileRecord]? {
    guard Self.isDigest(digest),
      case .success(let bytes) = FileContents.read(path: path + "/" + digest, limit: Self.maximumSize, regularOnly: true)
    else { return nil }
    return Self.records(in: bytes)
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
    let bytes = Self.bytes(of: files)
    let failure = bytes.withUnsafeBytes { writeWhole(descriptor, $0) }
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

  /// `KIND DIGEST PATH` and a NUL, per file: a path may hold any byte but NUL.
  static func bytes(of files: [FileRecord]) -> [UInt8] {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(files.count * 96)
    for file in files {
      bytes.append(contentsOf: file.kind.rawValue.utf8)
      bytes.append(UInt8(ascii: " "))
      bytes.append(contentsOf: file.digest.utf8)
      bytes.append(UInt8(ascii: " "))
      bytes.append(contentsOf: file.path.utf8)
      bytes.append(0)
    }
    return bytes
  }

  /// The records of `bytes`; nil when any entry is damaged.
  static func records(in bytes: [UInt8]) -> [FileRecord]? {
    // Scanned by hand over the buffer: a listing of many thousand files is read when an
    // input changed, to say which one, and the generic splits took longer than the decision.
    bytes.withUnsafeBufferPointer { bytes in
      var records: [FileRecord] = []
      var start = 0
      while start < bytes.count {
        let end = bytes[start...].firstIndex(of: 0) ?? bytes.count
        defer { start = end + 1 }
        guard end > start else { continue }
        let entry = UnsafeBufferPointer(rebasing: bytes[start..<end])
        guard let kindEnd = entry.firstIndex(of: UInt8(ascii: " ")),
          let digestEnd = entry[(kindEnd + 1)...].firstIndex(of: UInt8(ascii: " ")),
          let kind = FileKind(rawValue: String(decoding: entry[..<kindEnd], as: UTF8.self))
        else { return nil }
        records.append(
          FileRecord(
            path: String(decoding: entry[(digestEnd + 1)...], as: UTF8.self), kind: kind,
            digest: String(decoding: entry[(kindEnd + 1)..<digestEnd], as: UTF8.self)))
      }
      return records
    }
  }

  /// 64 lower-case hex digits: nothing else names a file here.
  static func isDigest(_ text: String) -> Bool {
    text.utf8.count == 64 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
  }
}
