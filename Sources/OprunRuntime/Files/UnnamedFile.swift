import COprunSystem
import Glibc

/// A temporary file with no name (`O_TMPFILE`: nothing to find or clean up, gone with its
/// last descriptor however the run ends), for what oprun keeps out of memory: the watch
/// history, grouped output. Where the file system has no unnamed files, a named one is
/// unlinked at once. Close-on-exec, mode 0600, open for reading and writing.
enum UnnamedFile {
  /// A new empty file's descriptor, in the first of `folders` that can hold one; else the
  /// failure in the last folder tried.
  static func open(inFirstOf folders: [String] = defaultFolders()) -> Result<Int32, SystemError> {
    var lastError = SystemError("open", errno: ENOENT)
    for folder in folders {
      let fd = oprun_open_unnamed_file(folder)
      if fd >= 0 { return .success(fd) }
      lastError = SystemError("open a temporary file in '\(folder)'")
      if let fd = namedThenUnlinked(in: folder) { return .success(fd) }
    }
    return .failure(lastError)
  }

  /// `$TMPDIR`, then `/var/tmp` (a disk, usually, where `/tmp` and `$XDG_RUNTIME_DIR` are
  /// often memory), then `/tmp`.
  static func defaultFolders() -> [String] {
    let temporary = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.hasPrefix("/") ? [$0] : nil }
    return (temporary ?? []) + ["/var/tmp", "/tmp"]
  }

  private static func namedThenUnlinked(in folder: String) -> Int32? {
    var template = Array((folder + "/oprun-XXXXXX").utf8CString)
    // Close-on-exec from the start: a job spawned meanwhile must not inherit it.
    let fd = template.withUnsafeMutableBufferPointer { oprun_make_temporary_file($0.baseAddress!) }
    guard fd >= 0 else { return nil }
    template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
    return fd
  }
}
