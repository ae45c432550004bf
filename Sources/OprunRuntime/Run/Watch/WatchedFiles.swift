import Glibc
import OprunCore

/// What `--watch` looks at (SPEC §13): the folders under the roots of the selected jobs'
/// input patterns, the manifest and its `dotenv` files (SPEC §15), and the content each file had when last looked at, so that
/// only a change of content counts (a same-content save, a `touch`, does not).
struct WatchedFiles {
  /// Watched with every folder under them.
  private(set) var trees: [String] = []
  /// Files named by a pattern without wildcards, and the manifest: their folder is watched alone.
  private(set) var files: Set<String> = []
  /// The manifest's absolute path.
  let manifest: String
  /// The manifest's own `dotenv` files, the manifests it includes and theirs: read with it,
  /// so a change to one counts as a change to it.
  private var sharedFiles: Set<String> = []
  /// Each job's trees and single files.
  private var rootsOfJob: [JobID: [String]] = [:]
  /// Outputs named without wildcards: what the run's own jobs write, which is no change to watch.
  private var outputs: Set<String> = []
  /// Each file's content when last looked at; invariant: only paths `counts` accepts.
  private var known: [String: Look] = [:]

  /// A file's content digest, and what `stat` said of it when it was read: a later look
  /// whose `stat` is the same, and safely past the file's last change, need not read it
  /// again (``HashCache/trusts(_:hashedAt:now:)``, the hash cache's rule).
  private struct Look {
    var digest: String
    var status: FileStatus
    var readAt: Timestamp
  }

  /// The roots of `graph`'s jobs' inputs, and `manifestPath`.
  init(graph: JobGraph, manifestPath: String) {
    manifest = AbsolutePath.of(manifestPath)
    files.insert(manifest)
    for file in graph.manifest.dotenv {
      sharedFiles.insert(AbsolutePath.of(DotenvResolution.path(of: file, manifestPath: manifestPath)))
    }
    // The manifests it includes are read as the manifest is (SPEC §15).
    for job in graph.manifest.jobs {
      if let included = job.includedFrom { sharedFiles.insert(AbsolutePath.of(included)) }
    }
    for file in graph.manifest.includedDotenvFiles { sharedFiles.insert(AbsolutePath.of(file)) }
    files.formUnion(sharedFiles)
    for job in graph.jobs {
      let spec = graph.manifest.jobs.indices.contains(job.id) ? graph.manifest.jobs[job.id].dotenv : []
      for file in spec {
        let path = AbsolutePath.of(DotenvResolution.path(of: file, manifestPath: manifestPath))
        files.insert(path)
        rootsOfJob[job.id, default: []].append(path)
      }
      let folder = AbsolutePath.of(job.cwd ?? graph.manifestFolder)
      for pattern in job.inputs where !pattern.isExclusion {
        let base = Self.root(of: pattern, in: folder)
        rootsOfJob[job.id, default: []].append(base)
        if pattern.literalPrefix.rest.isEmpty && !Self.isFolder(base) && !pattern.namesFolder {
          files.insert(base)
        } else {
          trees.append(base)
        }
      }
      for pattern in job.outputs where !pattern.isExclusion && pattern.literalPrefix.rest.isEmpty {
        outputs.insert(Self.root(of: pattern, in: folder))
      }
    }
    trees = Array(Set(trees)).sorted()
  }

  /// The folder a pattern's walk starts from, or the path it names when it has no wildcard.
  private static func root(of pattern: PathPattern, in folder: String) -> String {
    let joined = pattern.literalPrefix.folder.filter { !$0.isEmpty }.joined(separator: "/")
    return pattern.isAbsolute ? "/" + joined : (joined.isEmpty ? folder : folder + "/" + joined)
  }

  /// Whether `path` is read with the manifest: the manifest, a manifest it includes, or one
  /// of its own `dotenv` files. A change to one of them may change what is watched.
  func isManifestFile(_ path: String) -> Bool {
    path == manifest || sharedFiles.contains(path)
  }

  /// The jobs that read one of `paths` (every job when the manifest or one of its own
  /// dotenv files is among them).
  func jobs(reading paths: [String], in graph: JobGraph) -> [JobID] {
    if paths.contains(where: isManifestFile) { return graph.jobs.map(\.id) }
    return rootsOfJob.compactMap { job, roots in
      paths.contains { path in Self.isUnder(path, anyOf: roots) } ? job : nil
    }.sorted()
  }

  private static func isUnder(_ path: String, anyOf roots: some Sequence<String>) -> Bool {
    roots.contains { path == $0 || path.hasPrefix($0 + "/") }
  }

  /// The folders to watch alone (not their subfolders): those of the single files, and the
  /// nearest existing folder above a tree that does not exist yet.
  var singleFolders: [String] {
    var folders = Set(files.map { PathParts.folder(of: $0) })
    for tree in trees where !Self.isFolder(tree) {
      var folder = PathParts.folder(of: tree)
      while !Self.isFolder(folder), folder != "/" { folder = PathParts.folder(of: folder) }
      folders.insert(folder)
    }
    return folders.sorted()
  }

  /// Whether a change at `path` may concern a job or the manifest: never anything in `.oprun/`.
  func counts(_ path: String) -> Bool {
    if path.contains("/.oprun/") || path.hasSuffix("/.oprun") { return false }
    if Self.isUnder(path, anyOf: outputs) { return false }
    if files.contains(path) { return true }
    return Self.isUnder(path, anyOf: trees)
  }

  /// Looks at every file under the trees and the single files now, as they are: a file
  /// whose `stat` shows no change since it was last read is not read again.
  mutating func lookAtEverything() {
    var now: [String: Look] = [:]
    var paths = Array(files)
    for tree in trees { Self.walk(tree) { paths.append($0) } }
    for path in paths { now[path] = Self.look(at: path, knowing: known[path]) }
    known = now
  }

  /// Of every path the kernel named and every file under the trees, those whose content now
  /// differs from when last looked at (created, edited, removed); records their content now.
  mutating func changes(among paths: [String]) -> [String] {
    var changed: [String] = []
    for path in paths where counts(path) {
      if Self.isFolder(path) {
        // A folder moved in or out brings or takes its files.
        let before = known.keys.filter { $0.hasPrefix(path + "/") }
        var under: [String] = []
        Self.walk(path) { under.append($0) }
        changed += Set(before).union(under).sorted().filter { update($0) }
      } else if update(path) {
        changed.append(path)
      } else if known[path] == nil {
        // Gone, and maybe a folder before: what was known under it is gone too.
        changed += known.keys.filter { $0.hasPrefix(path + "/") }.sorted().filter { update($0) }
      }
    }
    return changed
  }

  /// Every file whose content differs from when last looked at, the trees walked again (after
  /// the kernel's queue overflowed, or while polling); recorded only by `changes(among:)`.
  func rescan() -> [String] {
    var paths = Array(known.keys) + Array(files)
    for tree in trees { Self.walk(tree) { paths.append($0) } }
    return Array(Set(paths)).sorted().filter { known[$0]?.digest != Self.look(at: $0, knowing: known[$0])?.digest }
  }

  /// How many files are watched now.
  var fileCount: Int { known.count }

  /// Records `path`'s content now, read whatever its `stat` says (the kernel named it);
  /// whether it differs from what was known.
  private mutating func update(_ path: String) -> Bool {
    let now = Self.look(at: path, knowing: nil)
    defer { known[path] = now }
    return known[path]?.digest != now?.digest
  }

  private static func walk(_ folder: String, _ visit: (String) -> Void) {
    guard let entries = FolderEntries(folder) else { return }
    for entry in entries.entries where entry.name != ".oprun" {
      let path = folder + "/" + entry.name
      if entry.type == UInt8(DT_DIR) { walk(path, visit) } else { visit(path) }
    }
  }

  static func isFolder(_ path: String) -> Bool {
    var status = stat()
    return stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR
  }

  /// The file's content now — `known`'s when its `stat` says it cannot have changed; nil
  /// for a file that is not there or is not a regular file.
  private static func look(at path: String, knowing known: Look?) -> Look? {
    guard let status = FileStatus.of(path, followingLink: true), status.isRegular else { return nil }
    if let known, HashCache.trusts(known.status, hashedAt: known.readAt, now: status) { return known }
    let readAt = Timestamp.now()
    guard case .success(let bytes) = FileContents.read(path: path, limit: Int.max) else { return nil }
    return Look(digest: ContentDigest.of(bytes), status: status, readAt: readAt)
  }
}
