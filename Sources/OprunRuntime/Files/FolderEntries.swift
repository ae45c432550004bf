import Glibc
import OprunCore

/// One folder open for listing, whose entries are looked at through its descriptor: a
/// `stat` of an entry does not walk its whole path again.
final class FolderEntries {
  struct Entry {
    var name: String
    /// `d_type`: `DT_UNKNOWN` where the file system does not say.
    var type: UInt8
  }

  /// Without `.` and `..`.
  let entries: [Entry]
  private let folder: OpaquePointer

  /// The folder at `path` listed; nil when it cannot be.
  init?(_ path: String) {
    guard let folder = opendir(path) else { return nil }
    var entries: [Entry] = []
    while let entry = readdir(folder) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
        String(cString: bytes.bindMemory(to: CChar.self).baseAddress!)
      }
      if name == "." || name == ".." { continue }
      entries.append(Entry(name: name, type: entry.pointee.d_type))
    }
    self.folder = folder
    self.entries = entries
  }

  deinit { closedir(folder) }

  /// The entries in the byte order of the paths they stand for: a folder's name as if it
  /// ended in `/`, since its files' paths go on with one. Each comes with its `lstat` when
  /// telling whether it is a folder took one.
  func sortedAsPaths() -> [(entry: Entry, status: FileStatus?)] {
    let statuses = entries.map { $0.type == DT_UNKNOWN ? status(of: $0.name) : nil }
    let order = ByteOrder.sortedIndices(entries.count) { index, bytes in
      bytes += entries[index].name.utf8
      if entries[index].type == DT_DIR || statuses[index]?.isFolder == true { bytes.append(UInt8(ascii: "/")) }
    }
    return order.map { (entries[$0], statuses[$0]) }
  }

  /// `lstat` of the entry `name`; nil when it is gone.
  func status(of name: String) -> FileStatus? {
    var status = stat()
    return fstatat(dirfd(folder), name, &status, AT_SYMLINK_NOFOLLOW) == 0 ? FileStatus(status) : nil
  }
}
