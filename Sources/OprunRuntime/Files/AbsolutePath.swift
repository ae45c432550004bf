import Glibc
import OprunCore

/// Paths as the file system resolves them, to tell whether two spellings name one file.
public enum AbsolutePath {
  /// `path` made absolute with its links resolved; for a file that does not exist yet, its
  /// folder resolved and its name appended (`./x` and `x` come out the same).
  public static func of(_ path: String) -> String {
    if let resolved = resolved(path) { return resolved }
    let name = PathParts.fileName(of: path)
    if let folder = resolved(PathParts.folder(of: path)) {
      return folder == "/" ? "/" + name : folder + "/" + name
    }
    if path.hasPrefix("/") { return path }
    guard let directory = getcwd(nil, 0) else { return path }
    defer { free(directory) }
    return String(cString: directory) + "/" + path
  }

  /// Whether `a` and `b` name the same file, existing or to be created.
  public static func sameFile(_ a: String, _ b: String) -> Bool {
    a == b || of(a) == of(b)
  }

  private static func resolved(_ path: String) -> String? {
    guard let resolved = realpath(path, nil) else { return nil }
    defer { free(resolved) }
    return String(cString: resolved)
  }
}
