import COprunSystem
import Glibc
import OprunCore

/// A `.oprun/` found fit for this process to use (SPEC §9): what ``StateFolder/open()`` gives.
public struct UsableStateFolder: Sendable, Equatable {
  public let state: StateFolder
}

extension StateFolder {
  /// Why a `.oprun/` is not used: the one warning a run gives before going on without it.
  public struct Refusal: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong with it, naming the file.
    public var problem: String

    public var description: String {
      "\(problem): it is not used, and this run keeps no journal, hash cache or records, as with --no-journal "
        + "(remove it, and oprun makes one of its own)"
    }
  }

  /// Whether this `.oprun/` may be used, decided once, before a run reads or writes anything
  /// in it. It is refused, as git refuses a repository another user owns, when it or anything
  /// in it belongs to another user, when everyone may write it or a folder in it, or when it is
  /// no folder: whoever controls it could plant links where oprun writes, or records that
  /// decide what runs. One that is not there yet is usable: ``makeFolder(_:)`` makes it, for
  /// this user alone.
  public func open() -> Result<UsableStateFolder, Refusal> {
    var link = stat()
    guard lstat(path, &link) == 0 else {
      if errno == ENOENT { return .success(UsableStateFolder(state: self)) }
      return .failure(Refusal(problem: "cannot look at '\(path)': \(errorMessage(errno))"))
    }
    // A link of this user's own (to a folder on a larger disk, say) is followed; its target
    // is checked as the folder itself.
    if let problem = Self.problem(with: link, at: path, expectingFolder: false) {
      return .failure(Refusal(problem: problem))
    }
    let folder = Glibc.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard folder >= 0 else {
      let reason = errno == ENOTDIR ? "not a folder" : errorMessage(errno)
      return .failure(Refusal(problem: "cannot use '\(path)': \(reason)"))
    }
    defer { close(folder) }
    var status = stat()
    guard fstat(folder, &status) == 0 else {
      return .failure(Refusal(problem: "cannot look at '\(path)': \(errorMessage(errno))"))
    }
    if let problem = Self.problem(with: status, at: path, expectingFolder: true)
      ?? Self.problem(inFolder: folder, at: path, depth: 0)
    {
      return .failure(Refusal(problem: problem))
    }
    return .success(UsableStateFolder(state: self))
  }

  /// What makes a file of `status` at `path` unfit to be in `.oprun/`; nil when nothing does.
  private static func problem(with status: stat, at path: String, expectingFolder: Bool) -> String? {
    if status.st_uid != effectiveUser {
      return "'\(path)' belongs to another user (uid \(status.st_uid))"
    }
    let type = status.st_mode & S_IFMT
    if expectingFolder, type != S_IFDIR { return "'\(path)' is not a folder" }
    if type == S_IFDIR, status.st_mode & S_IWOTH != 0 {
      return "'\(path)' may be written by everyone (mode \(String(status.st_mode & 0o7777, radix: 8)))"
    }
    return nil
  }

  /// This process's effective uid: asked once, not once for each file of `.oprun/`.
  private static let effectiveUser = geteuid()

  /// Folders nest no deeper than `slurm/RUN-ID/` in a `.oprun/` oprun made: what lies
  /// deeper is no file oprun reads or writes.
  private static let deepestFolder = 2

  /// Whether the entries of the folder `name` (of `status`, at `depth` below `.oprun/`) are
  /// each looked at. Those of `runs/` always are: a few journals, which decide what runs. Those
  /// of the listings of inputs and outputs and of the Slurm jobs' output (one file per job,
  /// thousands of them in a large manifest) only when someone besides its owner, this user,
  /// may write the folder: otherwise only this user or root put them there, and each is read
  /// without following a link.
  private static func isLookedInto(_ name: String, _ status: stat, depth: Int) -> Bool {
    (depth == 0 && name == "runs") || status.st_mode & (S_IWGRP | S_IWOTH) != 0
  }

  /// The first thing in the folder open as `folder` (at `path`), or below it, that is unfit.
  private static func problem(inFolder folder: Int32, at path: String, depth: Int) -> String? {
    let listing = dup(folder)
    guard listing >= 0, let directory = fdopendir(listing) else {
      if listing >= 0 { close(listing) }
      return "cannot list '\(path)': \(errorMessage(errno))"
    }
    defer { closedir(directory) }
    while let entry = readdir(directory) {
      let name = entry.name
      if name == "." || name == ".." { continue }
      let inside = path + "/" + name
      var status = stat()
      guard fstatat(folder, name, &status, AT_SYMLINK_NOFOLLOW) == 0 else {
        if errno == ENOENT { continue }  // removed meanwhile, by this user's other run
        return "cannot look at '\(inside)': \(errorMessage(errno))"
      }
      if let problem = problem(with: status, at: inside, expectingFolder: false) { return problem }
      // What oprun keeps at the top (its folders, the hash cache) is never reached through a
      // link; a link deeper, where a journal or a listing should be, is only not read.
      if depth == 0, status.st_mode & S_IFMT == S_IFLNK { return "'\(inside)' is a symbolic link" }
      guard status.st_mode & S_IFMT == S_IFDIR, depth < deepestFolder, Self.isLookedInto(name, status, depth: depth)
      else { continue }
      let below = openat(folder, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
      guard below >= 0 else { return "cannot look into '\(inside)': \(errorMessage(errno))" }
      defer { close(below) }
      if let problem = problem(inFolder: below, at: inside, depth: depth + 1) { return problem }
    }
    return nil
  }

  /// Makes this folder and then `subfolder` (one of its own, ``runs`` say) when they are not
  /// there yet, with no access for others; or why one could not be made or is not fit. One
  /// found there already (made meanwhile by someone else) is checked as ``open()`` checks it.
  func makeFolder(_ subfolder: String? = nil) -> Result<Void, JournalError> {
    for folder in [path] + (subfolder.map { [$0] } ?? []) {
      if mkdir(folder, 0o700) == 0 { continue }
      guard errno == EEXIST else {
        return .failure(JournalError("cannot create '\(folder)': \(errorMessage(errno))"))
      }
      var status = stat()
      // The state folder itself may be this user's link; what is inside it never is.
      let looked = folder == path ? stat(folder, &status) : lstat(folder, &status)
      guard looked == 0 else { return .failure(JournalError("cannot look at '\(folder)': \(errorMessage(errno))")) }
      if let problem = Self.problem(with: status, at: folder, expectingFolder: true) {
        return .failure(JournalError(problem + ": not used"))
      }
    }
    return .success(())
  }

  /// A new file in `folder` (this state folder or one of its own) under a name no one can
  /// foresee, beginning with `prefix`: created with `O_EXCL`, so that nothing planted there is
  /// opened, mode 0600, close-on-exec; its descriptor and path, or nil with `errno` set.
  /// Renamed into place once written, or unlinked.
  func createTemporaryFile(in folder: String, prefix: String) -> (descriptor: Int32, path: String)? {
    var template = Array((folder + "/" + prefix + "XXXXXX").utf8CString)
    let descriptor = template.withUnsafeMutableBufferPointer { oprun_make_temporary_file($0.baseAddress!) }
    guard descriptor >= 0 else { return nil }
    return (descriptor, template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
  }

  /// Removes the temporary files that runs killed while writing left (``createTemporaryFile(in:prefix:)``
  /// names them with a leading dot, in this folder, in ``inputs`` and in ``outputs``), once
  /// older than `age` seconds: a run renames its own within moments.
  func removeLeftTemporaries(olderThan age: Int) {
    for folder in [path, inputs, outputs] {
      guard let directory = opendir(folder) else { continue }
      defer { closedir(directory) }
      while let entry = readdir(directory) {
        let name = entry.name
        guard name.hasPrefix("."), name != ".", name != ".." else { continue }
        let file = folder + "/" + name
        var status = stat()
        guard lstat(file, &status) == 0, status.st_mode & S_IFMT == S_IFREG,
          Int(time(nil)) - Int(status.st_mtim.tv_sec) > age
        else { continue }
        unlink(file)
      }
    }
  }
}
