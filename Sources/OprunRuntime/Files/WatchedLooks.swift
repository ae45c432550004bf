import Glibc
import OprunCore

/// What `--watch` lends a cycle's walks (SPEC §13): the `lstat` each file had when the cycle
/// before walked it, taken in place of a new one where the kernel vouches that the file has
/// not changed since — its folder watched without a break, and the file named in no event
/// since that cycle began — and what this cycle's walks find, for the next.
///
/// A walk still lists every folder and matches every name, so what is there and what the
/// patterns take is what a walk without it finds: only the `lstat` of each unchanged file,
/// most of a large walk's time, is spared. Kept by folder, each folder's files in the order a
/// walk meets them, so that a walk finds a file's earlier status by stepping through its
/// folder's list beside its listing, hashing no path.
final class WatchedLooks: Sendable {
  /// One folder's files as a walk found them, in the order it met them.
  typealias FolderLook = [(name: String, status: FileStatus)]

  /// Per folder, what the last cycle's walks found there.
  private let earlier: [String: FolderLook]
  /// Per folder, the names in it the kernel named since the last cycle began.
  private let named: [String: Set<String>]
  /// Folders watched by the same watch since the last cycle began.
  private let steadyFolders: Set<String>
  /// What this cycle's walks found, per folder.
  private let found = Locked<[String: FolderLook]>([:])

  /// `earlier`: what the last cycle's walks found; `named`: every path the kernel named since
  /// that cycle began, before any filter (a job's output, which no change counts, may be
  /// another job's input); `steadyFolders`: the folders watched without a break since then.
  init(earlier: [String: FolderLook], named: Set<String>, steadyFolders: Set<String>) {
    self.earlier = earlier
    var byFolder: [String: Set<String>] = [:]
    for path in named { byFolder[PathParts.folder(of: path), default: []].insert(PathParts.fileName(of: path)) }
    self.named = byFolder
    self.steadyFolders = steadyFolders
  }

  /// Lends nothing: the first cycle's, and one after the kernel's queue overflowed.
  convenience init() {
    self.init(earlier: [:], named: [], steadyFolders: [])
  }

  /// What a walk listing `folder` may take; nil when it must look at every file.
  func lender(for folder: String) -> Lender? {
    guard steadyFolders.contains(folder), let files = earlier[folder], !files.isEmpty else { return nil }
    return Lender(files: files, named: named[folder] ?? [])
  }

  /// The earlier statuses of one folder's files, asked for in the order a walk meets them.
  struct Lender {
    fileprivate let files: FolderLook
    fileprivate let named: Set<String>
    private var next = 0

    fileprivate init(files: FolderLook, named: Set<String>) {
      self.files = files
      self.named = named
    }

    /// The `lstat` the last cycle found of the file `name`, when the kernel vouches it is
    /// unchanged; nil when it must be looked at. Names come in the walk's order.
    mutating func status(of name: String) -> FileStatus? {
      while next < files.count, ByteOrder.precedes(files[next].name, name) { next += 1 }
      guard next < files.count, files[next].name == name else { return nil }
      defer { next += 1 }
      return named.contains(name) ? nil : files[next].status
    }
  }

  /// Records what a walk found in `folder`.
  func record(_ files: FolderLook, in folder: String) {
    guard !files.isEmpty else { return }
    found.withLock { $0[folder] = files }
  }

  /// What this cycle's walks found, for the next cycle's looks.
  var foundLooks: [String: FolderLook] { found.withLock { $0 } }
}
