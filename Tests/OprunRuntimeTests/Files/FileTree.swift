import Glibc
import OprunCore
import Testing

@testable import OprunRuntime

/// A folder of files made for one test under /tmp, removed with everything in it.
final class FileTree {
  let root: String

  init() throws {
    var template = Array("/tmp/oprun-files-XXXXXX".utf8CString)
    let path = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
    root = String(cString: try #require(path))
  }

  deinit { Self.removeRecursively(root) }

  func path(_ relative: String) -> String { relative.hasPrefix("/") ? relative : root + "/" + relative }

  /// Writes `text` to `relative`, making its folders.
  func write(_ relative: String, _ text: String = "") {
    makeFolder(PathParts.folder(of: relative))
    let descriptor = open(path(relative), O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    precondition(descriptor >= 0, "cannot write \(relative)")
    _ = text.utf8CString.withUnsafeBufferPointer { Glibc.write(descriptor, $0.baseAddress, $0.count - 1) }
    close(descriptor)
  }

  func makeFolder(_ relative: String) {
    var prefix = ""
    for name in relative.split(separator: "/") {
      prefix += (prefix.isEmpty ? "" : "/") + name
      mkdir(path(prefix), 0o755)
    }
  }

  func link(_ relative: String, to target: String) {
    makeFolder(PathParts.folder(of: relative))
    precondition(symlink(target, path(relative)) == 0)
  }

  func fifo(_ relative: String) { precondition(mkfifo(path(relative), 0o644) == 0) }

  /// Sets the modification time of `relative` to that of `other`, as `touch -r` does.
  func copyModificationTime(of other: String, to relative: String) {
    var status = stat()
    precondition(stat(path(other), &status) == 0)
    var times = [status.st_atim, status.st_mtim]
    precondition(utimensat(AT_FDCWD, path(relative), &times, 0) == 0)
  }

  /// Sets the modification time of `relative` to `seconds` after the epoch.
  func setModificationTime(of relative: String, seconds: Int) {
    var times = [timespec(tv_sec: seconds, tv_nsec: 0), timespec(tv_sec: seconds, tv_nsec: 0)]
    precondition(utimensat(AT_FDCWD, path(relative), &times, 0) == 0)
  }

  /// The snapshot of `patterns`, relative to `folder` (the root by default), the root being
  /// the manifest's folder.
  func snapshot(
    _ patterns: [String], excluded: [String] = [], folder: String = "",
    hasher: FileHasher = FileHasher(cacheFolder: nil)
  ) throws -> FileSnapshot {
    let request = FileSetRequest(
      folder: folder.isEmpty ? root : path(folder), manifestFolder: root,
      patterns: try patterns.map { try PathPattern.parse($0).get() },
      excluded: try excluded.map { try PathPattern.parse($0).get() })
    return hasher.snapshot(request)
  }

  /// The recorded paths `patterns` match.
  func paths(_ patterns: [String], excluded: [String] = [], folder: String = "") throws -> [String] {
    try snapshot(patterns, excluded: excluded, folder: folder).files.map(\.path)
  }

  private static func removeRecursively(_ path: String) {
    var status = stat()
    guard lstat(path, &status) == 0 else { return }
    if status.st_mode & S_IFMT == S_IFDIR {
      for entry in FolderEntries(path)?.entries ?? [] { removeRecursively(path + "/" + entry.name) }
      rmdir(path)
    } else {
      unlink(path)
    }
  }
}

/// The SHA-256 of `text`, in hex.
func sha256(_ text: String) -> String { ContentDigest.of(Array(text.utf8)) }
