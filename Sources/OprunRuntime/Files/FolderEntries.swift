import Glibc

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

  /// `lstat` of the entry `name`; nil when it is gone.
  func status(of name: String) -> FileStatus? {
    var status = stat()
    return fstatat(dirfd(folder), name, &status, AT_SYMLINK_NOFOLLOW) == 0 ? FileStatus(status) : nil
  }
}
