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

  /// The entries in the byte order of the paths they stand for: a folder's name as if it
  /// ended in `/`, since its files' paths go on with one. Each comes with its `lstat` when
  /// telling whether it is a folder took one.
  func sortedAsPaths() -> [(entry: Entry, status: FileStatus?)] {
    var listed = entries.map { entry -> (entry: Entry, status: FileStatus?) in
      guard entry.type == DT_UNKNOWN else { return (entry, nil) }
      return (entry, status(of: entry.name))
    }
    func isFolder(_ item: (entry: Entry, status: FileStatus?)) -> Bool {
      item.entry.type == DT_DIR || item.status?.isFolder == true
    }
    listed.sort { a, b in
      Self.precedes(a.entry.name, asFolder: isFolder(a), b.entry.name, asFolder: isFolder(b))
    }
    return listed
  }

  /// Whether the path `a` (followed by `/` when `asFolder`) comes before `b` byte by byte.
  private static func precedes(_ a: String, asFolder aIsFolder: Bool, _ b: String, asFolder bIsFolder: Bool) -> Bool {
    var a = a
    var b = b
    return a.withUTF8 { a in
      b.withUTF8 { b in
        let shorter = min(a.count, b.count)
        let common = shorter == 0 ? 0 : memcmp(a.baseAddress!, b.baseAddress!, shorter)
        if common != 0 { return common < 0 }
        // Names in one folder differ, and none holds a `/`: past the shorter one, its `/`
        // or its end decides.
        let slash = UInt8(ascii: "/")
        if a.count < b.count { return aIsFolder ? slash < b[shorter] : true }
        if b.count < a.count { return bIsFolder ? a[shorter] < slash : false }
        return false
      }
    }
  }

  /// `lstat` of the entry `name`; nil when it is gone.
  func status(of name: String) -> FileStatus? {
    var status = stat()
    return fstatat(dirfd(folder), name, &status, AT_SYMLINK_NOFOLLOW) == 0 ? FileStatus(status) : nil
  }
}
