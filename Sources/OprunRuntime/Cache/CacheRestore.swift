import Glibc
import OprunCore

/// Puts a job's outputs back from a cache entry (SPEC §14), on one of the cache's threads.
///
/// Nothing is written until every path of the entry is known to be one of the job's own
/// outputs under the manifest's folder, reached through no link, and every blob has been
/// fetched into a temporary file beside its place and found to hash to its name. Only then
/// is each renamed into place (with its mode), and a declared output the entry lacks removed:
/// a refused or failed restore leaves the outputs as they were.
struct CacheRestore {
  /// The manifest's folder, absolute: entry paths are relative to it.
  var manifestFolder: String
  /// Where the job runs: its output patterns are relative to it.
  var jobFolder: String
  var outputs: [PathPattern]
  /// What the job's outputs match now, paths as records keep them: those the entry lacks are removed.
  var currentOutputs: [String]
  /// The run's cache work: when the run ends first, the restore gives up and removes what it wrote.
  var work: CacheWork? = nil
  /// The run's hash cache, told what each restored file holds.
  var hashes: HashCache? = nil

  /// Restores `entry` from `store`; the bytes written, or why nothing was.
  func restore(_ entry: CacheEntry, from store: any CacheStore) -> Result<Int, CacheProblem> {
    for file in entry.files {
      if let refusal = refusal(of: file.path) { return .failure(refusal) }
    }
    var fetched: [(file: CacheEntry.File, temporary: String, target: String, written: FileStatus)] = []
    func discard() { for file in fetched { unlink(file.temporary) } }
    for file in entry.files {
      let target = manifestFolder + "/" + file.path
      guard makeFolders(PathParts.folder(of: target)) else {
        discard()
        return .failure(CacheProblem("cannot create the folder of \(file.path): \(errorMessage(errno))"))
      }
      switch fetch(file, to: target, from: store) {
      case .success(let (temporary, written)): fetched.append((file, temporary, target, written))
      case .failure(let problem):
        discard()
        return .failure(problem)
      }
    }
    for file in fetched where rename(file.temporary, file.target) != 0 {
      let problem = CacheProblem("cannot rename into \(file.target): \(errorMessage(errno))")
      discard()
      return .failure(problem)
    }
    // The run records the restored files next: what was just written from checked bytes is
    // not read again to learn what it holds, while it is the same file, unchanged since
    // (renaming gave it a new change time).
    if let hashes {
      let now = Timestamp.now()
      for restored in fetched {
        guard let found = FileStatus.of(restored.target, followingLink: false), found.isUnwritten(since: restored.written)
        else { continue }
        hashes.vouch(for: restored.file.path, status: found, digest: restored.file.sha256, writtenAt: now)
      }
    }
    let restored = Set(entry.files.map(\.path))
    for path in currentOutputs
    where !restored.contains(path) && CacheEntry.isPlainRelativePath(path)
      && !path.split(separator: "/").contains(where: { Self.keptFolders.contains(String($0)) })
    {
      unlink(manifestFolder + "/" + path)
    }
    return .success(entry.bytes)
  }

  /// The mode bits a restore gives a file: the permissions and the sticky bit, never set-user-ID
  /// or set-group-ID, which an entry from a shared cache could otherwise plant on a program
  /// that runs as whoever restored it.
  static let restoredModeBits: UInt32 = 0o1777

  /// Folders a restore never writes into nor removes from.
  static let keptFolders: Set<String> = [".git", ".hg", ".svn", ".oprun"]

  /// How the name of a file being restored begins.
  static let temporaryPrefix = ".oprun-restore"

  /// Why the entry may not write `path`; nil when it may.
  func refusal(of path: String) -> CacheProblem? {
    guard CacheEntry.isPlainRelativePath(path) else {
      return CacheProblem("the entry names '\(path)', outside the manifest's folder")
    }
    // What a version-control folder or oprun's own state holds is never a build's output,
    // whatever a broad pattern (`**`) matches: an entry must not plant a git hook there.
    if let kept = path.split(separator: "/").first(where: { Self.keptFolders.contains(String($0)) }) {
      return CacheProblem("the entry names '\(path)', inside \(kept)/, which a restore never writes")
    }
    let absolute = manifestFolder + "/" + path
    guard Self.matches(absolute, outputs, jobFolder: jobFolder, manifestFolder: manifestFolder) else {
      return CacheProblem("the entry names '\(path)', which none of the job's outputs matches")
    }
    // Every folder on the way must be a folder, not a link that leads elsewhere.
    var folder = manifestFolder
    let names = path.split(separator: "/")
    for name in names.dropLast() {
      folder += "/" + name
      var status = stat()
      if lstat(folder, &status) != 0 { break }
      guard status.st_mode & S_IFMT == S_IFDIR else {
        return CacheProblem("the entry names '\(path)', through '\(folder)', which is no folder")
      }
    }
    return nil
  }

  /// Whether the job's output patterns, in order (a `!` pattern removing what those before
  /// it matched), match the file at `absolute`.
  static func matches(_ absolute: String, _ patterns: [PathPattern], jobFolder: String, manifestFolder: String) -> Bool
  {
    var matched = false
    for pattern in patterns where matched == pattern.isExclusion {
      let walk = WalkPattern(pattern, from: jobFolder, manifestFolder: manifestFolder, leadsWalk: true)
      if walk.matchesFile(at: absolute) { matched = !pattern.isExclusion }
    }
    return matched
  }

  /// The blob of `file` in a new temporary file beside `target`, checked and given its mode,
  /// and the file's `stat` once written.
  private func fetch(_ file: CacheEntry.File, to target: String, from store: any CacheStore) -> Result<
    (String, FileStatus), CacheProblem
  > {
    let temporary = PathParts.folder(of: target) + "/" + TemporaryName.next(String(Self.temporaryPrefix.dropFirst()))
    let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else {
      return .failure(CacheProblem("cannot create \(temporary): \(errorMessage(errno))"))
    }
    let writer = BlobWriter(descriptor: descriptor, work: work)
    var problem: CacheProblem?
    do throws(CacheProblem) {
      if try !store.blob(file.sha256, into: writer) {
        problem = CacheProblem("blob \(file.sha256) of \(file.path) is missing")
      } else if writer.count != file.size || writer.digest() != file.sha256 {
        problem = CacheProblem("blob \(file.sha256) of \(file.path) is corrupt", corruptBlob: file.sha256)
      } else if fchmod(descriptor, mode_t(file.mode & Self.restoredModeBits)) != 0 {
        problem = CacheProblem("cannot set the mode of \(temporary): \(errorMessage(errno))")
      } else {
        problem = nil
      }
    } catch {
      problem = error
    }
    var written = stat()
    if problem == nil, fstat(descriptor, &written) != 0 {
      problem = CacheProblem("cannot look at \(temporary): \(errorMessage(errno))")
    }
    close(descriptor)
    guard let problem else { return .success((temporary, FileStatus(written))) }
    unlink(temporary)
    return .failure(problem)
  }

  private func makeFolders(_ folder: String) -> Bool {
    if mkdir(folder, 0o755) == 0 || errno == EEXIST { return true }
    guard errno == ENOENT else { return false }
    let parent = PathParts.folder(of: folder)
    guard parent != folder, makeFolders(parent) else { return false }
    return mkdir(folder, 0o755) == 0 || errno == EEXIST
  }
}

extension WalkPattern {
  /// Whether the file at `absolute` (resolved) is one this pattern matches, by its path alone.
  func matchesFile(at absolute: String) -> Bool {
    guard let relative = LexicalPath.relative(absolute, to: base) else { return false }
    var progress = progressAtBase
    if relative == "." { return progress.matchesEverything && !namesFolder }
    let names = relative.split(separator: "/")
    for (index, name) in names.enumerated() {
      if progress.matchesEverything { return true }
      let isLast = index == names.count - 1
      let (matched, inside) = step(progress, name: String(name), isFolder: !isLast)
      if matched { return true }
      progress = inside
      if !progress.isLive { return false }
    }
    return false
  }
}
