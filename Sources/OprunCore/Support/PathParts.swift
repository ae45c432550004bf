/// A path split as oprun splits a manifest's path: the folder it is in and its file name.
public enum PathParts {
  /// The folder part: `.` for a bare file name, `/` for a file at the root.
  public static func folder(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    if slash == path.startIndex { return "/" }
    return String(path[..<slash])
  }

  /// The last component: the whole path when it has no `/`.
  public static func fileName(of path: String) -> String {
    path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? path
  }
}
