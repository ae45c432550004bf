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
    var statuses: [FileStatus?] = []
    // Every name's bytes in one buffer, with a `/` after a folder's: the indices are sorted
    // over it, not the entries, which would be moved whole at each step.
    var names: [UInt8] = []
    var ranges: [Range<Int>] = []
    for entry in entries {
      let status = entry.type == DT_UNKNOWN ? status(of: entry.name) : nil
      statuses.append(status)
      let start = names.count
      names.append(contentsOf: entry.name.utf8)
      if entry.type == DT_DIR || status?.isFolder == true { names.append(UInt8(ascii: "/")) }
      ranges.append(start..<names.count)
    }
    var order = Array(entries.indices)
    names.withUnsafeBufferPointer { names in
      order.sort { a, b in
        ByteOrder.precedes(UnsafeBufferPointer(rebasing: names[ranges[a]]), UnsafeBufferPointer(rebasing: names[ranges[b]]))
      }
    }
    return order.map { (entries[$0], statuses[$0]) }
  }

  /// `lstat` of the entry `name`; nil when it is gone.
  func status(of name: String) -> FileStatus? {
    var status = stat()
    return fstatat(dirfd(folder), name, &status, AT_SYMLINK_NOFOLLOW) == 0 ? FileStatus(status) : nil
  }
}
