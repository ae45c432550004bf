import Glibc

/// Where a user's runs keep their control sockets (SPEC §8), and the checks that make the
/// folder safe to use.
///
/// The folder is `$XDG_RUNTIME_DIR/oprun` when that variable holds an absolute path, else
/// `/tmp/oprun-UID`; each run's socket in it is named by oprun's pid, `PID.sock`, so two
/// live runs never meet at one path. A run and its clients compute the same folder.
public enum ControlFolder {
  /// The folder of this user's runs, by the rule above.
  public static func path() -> String {
    path(uid: geteuid(), runtimeDirectory: environment("XDG_RUNTIME_DIR"))
  }

  /// The folder of `uid`'s runs when `XDG_RUNTIME_DIR` is `runtimeDirectory`.
  static func path(uid: uid_t, runtimeDirectory: String?) -> String {
    if let runtimeDirectory, runtimeDirectory.hasPrefix("/") {
      return (runtimeDirectory.hasSuffix("/") ? runtimeDirectory : runtimeDirectory + "/") + "oprun"
    }
    return "/tmp/oprun-\(uid)"
  }

  /// The socket of the run of oprun `pid` in `folder`.
  public static func socketPath(in folder: String, pid: Int32) -> String {
    folder + "/\(pid).sock"
  }

  /// Creates `folder` (mode 0700) unless it exists, then makes sure it is one the run may
  /// put its socket in: a directory itself (never a symbolic link to one: `lstat`), owned
  /// by `uid`, and closed to group and others. Returns why not, or nil.
  static func prepare(_ folder: String, uid: uid_t = geteuid()) -> String? {
    if mkdir(folder, 0o700) != 0, errno != EEXIST {
      return "cannot create '\(folder)': \(errorMessage(errno))"
    }
    var status = stat()
    guard lstat(folder, &status) == 0 else { return "cannot use '\(folder)': \(errorMessage(errno))" }
    switch status.st_mode & S_IFMT {
    case S_IFDIR: break
    case S_IFLNK: return "'\(folder)' is a symbolic link, not a folder of this user"
    default: return "'\(folder)' is not a folder"
    }
    if status.st_uid != uid {
      return "'\(folder)' belongs to uid \(status.st_uid), not to this user (uid \(uid))"
    }
    let permissions = status.st_mode & 0o777
    if permissions & 0o077 != 0 {
      return "'\(folder)' has mode \(octal(permissions)), open to other users (0700 expected)"
    }
    return nil
  }

  /// The pids whose sockets are in `folder`, in increasing order, with their paths; none
  /// when the folder is missing, a symbolic link, or belongs to someone other than `uid`
  /// or root (whose sockets would not be this user's runs).
  public static func sockets(in folder: String, uid: uid_t = geteuid()) -> [(pid: Int32, path: String)] {
    var status = stat()
    guard lstat(folder, &status) == 0, status.st_mode & S_IFMT == S_IFDIR, status.st_uid == uid || status.st_uid == 0,
      let directory = opendir(folder)
    else { return [] }
    defer { closedir(directory) }
    var found: [(pid: Int32, path: String)] = []
    while let entry = readdir(directory) {
      let name = entry.name
      guard name.hasSuffix(".sock"), let pid = Int32(name.dropLast(5)), pid > 0, String(pid) + ".sock" == name
      else { continue }
      found.append((pid, folder + "/" + name))
    }
    return found.sorted { $0.pid < $1.pid }
  }

  static func environment(_ name: String) -> String? {
    guard let value = getenv(name) else { return nil }
    let text = String(cString: value)
    return text.isEmpty ? nil : text
  }

  private static func octal(_ mode: mode_t) -> String {
    "0" + String(mode, radix: 8)
  }
}
