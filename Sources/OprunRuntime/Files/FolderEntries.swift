import Glibc

/// The entries of one folder, as `readdir` lists them (no `.` or `..`).
enum FolderEntries {
  struct Entry {
    var name: String
    /// `d_type`: `DT_UNKNOWN` where the file system does not say.
    var type: UInt8
  }

  /// The entries of the folder at `path`; nil when it cannot be listed.
  static func of(_ path: String) -> [Entry]? {
    guard let folder = opendir(path) else { return nil }
    defer { closedir(folder) }
    var entries: [Entry] = []
    while let entry = readdir(folder) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
        String(cString: bytes.bindMemory(to: CChar.self).baseAddress!)
      }
      if name == "." || name == ".." { continue }
      entries.append(Entry(name: name, type: entry.pointee.d_type))
    }
    return entries
  }
}
