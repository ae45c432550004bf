import Glibc

/// Absolute paths handled as text, without asking the file system: joined, with `.` and
/// `..` resolved, and made relative to a folder they are under.
public enum LexicalPath {
  /// `path` (absolute, or relative to the absolute `folder`) with `.`, `..` and repeated
  /// slashes resolved; `..` at the root stays at the root. Links are not resolved: a `..`
  /// after a link goes back up the path as written.
  public static func resolve(_ path: String, from folder: String) -> String {
    let whole = path.hasPrefix("/") ? path : folder + "/" + path
    var names: [Substring] = []
    for name in whole.split(separator: "/") {
      switch name {
      case ".": continue
      case "..": _ = names.popLast()
      default: names.append(name)
      }
    }
    return "/" + names.joined(separator: "/")
  }

  /// `path` relative to `folder` (both resolved and absolute) when it is under it, with no
  /// `./`; `.` for the folder itself; nil for a path elsewhere.
  public static func relative(_ path: String, to folder: String) -> String? {
    if path == folder { return "." }
    if folder == "/" { return String(path.dropFirst()) }
    // By bytes: a path is a name, not text, and two spellings of one letter are two files.
    var (path, folder) = (path, folder)
    return path.withUTF8 { path in
      folder.withUTF8 { folder in
        guard path.count > folder.count, path[folder.count] == UInt8(ascii: "/"),
          memcmp(path.baseAddress!, folder.baseAddress!, folder.count) == 0
        else { return nil }
        return String(decoding: UnsafeBufferPointer(rebasing: path[(folder.count + 1)...]), as: UTF8.self)
      }
    }
  }

  /// Whether `path` is `folder` or under it (both resolved and absolute).
  public static func isWithin(_ path: String, _ folder: String) -> Bool {
    relative(path, to: folder) != nil
  }
}
