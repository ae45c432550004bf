import Glibc
import OprunCore

/// One folder open for listing, whose entries are looked at through its descriptor: a
/// `stat` of an entry does not walk its whole path again.
final class FolderEntries {
  struct Entry {
    var name: String
    /// `d_type`: `DT_UNKNOWN` where the file system does not say.
    var type: UInt8
    /// For a name that is not UTF-8, shown with U+FFFD where its bytes are not, by which it
    /// cannot be opened: its `lstat`, marked as of no kind, so that it is recorded as a file
    /// that cannot be read (and a folder as one that cannot be listed) rather than missed.
    var unreadableStatus: FileStatus?
  }

  /// Without `.` and `..`.
  let entries: [Entry]
  private let folder: OpaquePointer

  /// The folder at `path` listed; nil when it cannot be.
  init?(_ path: String) {
    guard let folder = opendir(path) else { return nil }
    var entries: [Entry] = []
    while let entry = readdir(folder) {
      let raw = entry.namePointer
      let (name, exact) = String(validatingCString: raw).map { ($0, true) } ?? (String(cString: raw), false)
      if name == "." || name == ".." { continue }
      guard !exact else {
        entries.append(Entry(name: name, type: entry.kind))
        continue
      }
      var status = stat()
      guard fstatat(dirfd(folder), raw, &status, AT_SYMLINK_NOFOLLOW) == 0 else { continue }
      var unreadable = FileStatus(status)
      unreadable.type = 0
      entries.append(Entry(name: name, type: UInt8(DT_REG), unreadableStatus: unreadable))
    }
    self.folder = folder
    self.entries = entries
  }

  deinit { closedir(folder) }

  /// The entries in the byte order of the paths they stand for: a folder's name as if it
  /// ended in `/`, since its files' paths go on with one. Each comes with its `lstat` when
  /// telling whether it is a folder took one.
  func sortedAsPaths() -> [(entry: Entry, status: FileStatus?)] {
    let statuses = entries.map { $0.unreadableStatus ?? ($0.type == DT_UNKNOWN ? status(of: $0.name) : nil) }
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
