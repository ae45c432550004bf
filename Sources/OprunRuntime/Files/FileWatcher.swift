import Glibc
import OprunCore

/// Hears from the kernel (inotify) of changes under folders: the descriptor is served by an
/// ``EventLoop`` like any other readable one, so waiting for a change costs no CPU.
///
/// A tree is watched folder by folder, as inotify asks; a folder created (or moved in) later
/// under a watched tree is watched as it appears, and the files already in it by then are
/// reported as changed. Events that came while no loop served the descriptor wait in the
/// kernel's queue and are read once one does.
public final class FileWatcher {
  /// What the kernel said since the last report.
  public enum Notice: Equatable, Sendable {
    /// These paths (files or folders) were written, created, removed or renamed.
    case changed([String])
    /// The kernel's queue overflowed: changes were lost, and every tree is to be looked at again.
    case overflowed
  }

  /// The inotify descriptor; invariant: open while `!isClosed`.
  private let descriptor: Int32
  private var isClosed = false
  /// The path of each watch descriptor, and the watch descriptor of each path.
  private var paths: [Int32: String] = [:]
  private var watches: [String: Int32] = [:]
  /// Folders whose subfolders are watched too (those of a tree).
  private var recursive: Set<Int32> = []
  private var servingLoop: EventLoop?
  private var onNotice: ((Notice) -> Void)?
  /// The kernel's limit of watches (`fs.inotify.max_user_watches`) was reached: some folder
  /// is not watched, and changes in it are heard of only by looking.
  public private(set) var limitReached = false
  /// Every path named since ``takeNamed()`` last emptied it, before anyone's filter; and
  /// whether the kernel's queue overflowed meanwhile, so that some change was never named.
  private var named: Set<String> = []
  private var overflowedSinceTaken = false
  /// Notices read while no loop served the watcher, for the next loop that does.
  private var unreported: [Notice] = []

  private static let changeMask: UInt32 =
    UInt32(IN_CLOSE_WRITE | IN_MODIFY | IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_ATTRIB)
    | UInt32(IN_DELETE_SELF | IN_MOVE_SELF)

  /// A watcher watching nothing yet.
  public init() throws(SystemError) {
    let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
    guard fd >= 0 else { throw SystemError("inotify_init1") }
    descriptor = fd
  }

  deinit { close() }

  /// How many folders are watched.
  public var watchedFolderCount: Int { watches.count }

  /// Watches `root` and, unless `recursive` is false, every folder under it (not following
  /// symbolic links). A root that does not exist yet is not watched; the caller watches its
  /// parent. Returns false when the kernel's limit of watches was reached.
  @discardableResult
  public func watch(folder root: String, recursive isRecursive: Bool = true) -> Bool {
    guard addWatch(root, recursive: isRecursive) else { return !limitReached }
    guard isRecursive else { return true }
    for sub in subfolders(of: root) where !watch(folder: sub, recursive: true) { return false }
    return true
  }

  /// Serves the descriptor on `loop`, calling `onNotice` with what each read brings (first,
  /// from the loop, what ``readQueued()`` read while no loop served it).
  public func serve(on loop: EventLoop, onNotice: @escaping (Notice) -> Void) {
    stopServing()
    servingLoop = loop
    self.onNotice = onNotice
    loop.watch(fd: descriptor) { [weak self] in self?.readEvents() }
    if !unreported.isEmpty {
      _ = loop.schedule(after: 0) { [weak self] in
        guard let self, let onNotice = self.onNotice else { return }
        let notices = unreported
        unreported = []
        for notice in notices { onNotice(notice) }
      }
    }
  }

  /// Reads what the kernel has queued by now: into ``takeNamed()``'s paths, and reported to
  /// the loop serving the watcher (or the next one to).
  public func readQueued() {
    guard !isClosed else { return }
    readEvents()
  }

  /// The paths named since the last call (or since the watcher was made), before anyone's
  /// filter, and whether the kernel's queue overflowed meanwhile.
  public func takeNamed() -> (paths: Set<String>, overflowed: Bool) {
    defer { (named, overflowedSinceTaken) = ([], false) }
    return (named, overflowedSinceTaken)
  }

  /// The watch of each folder watched now: one whose watch is the same at two moments was
  /// watched without a break between them.
  public var folderWatches: [String: Int32] { watches }

  /// Stops serving the descriptor; events go on queueing in the kernel.
  public func stopServing() {
    servingLoop?.unwatch(fd: descriptor)
    servingLoop = nil
    onNotice = nil
  }

  /// Closes the descriptor (and every watch with it); the watcher hears of nothing after.
  public func close() {
    guard !isClosed else { return }
    stopServing()
    isClosed = true
    _ = Glibc.close(descriptor)
  }

  /// Whether `folder` is watched now.
  private func addWatch(_ folder: String, recursive isRecursive: Bool) -> Bool {
    if watches[folder] != nil { return true }
    let wd = inotify_add_watch(descriptor, folder, Self.changeMask | UInt32(IN_ONLYDIR) | UInt32(IN_DONT_FOLLOW))
    guard wd >= 0 else {
      if errno == ENOSPC { limitReached = true }
      return false
    }
    paths[wd] = folder
    watches[folder] = wd
    if isRecursive { recursive.insert(wd) }
    return true
  }

  private func subfolders(of folder: String) -> [String] {
    guard let entries = FolderEntries(folder) else { return [] }
    var folders: [String] = []
    for entry in entries.entries where entry.unreadableStatus == nil {
      let path = folder == "/" ? "/" + entry.name : folder + "/" + entry.name
      if entry.type == UInt8(DT_DIR) {
        folders.append(path)
      } else if entry.type == UInt8(DT_UNKNOWN) {
        var status = stat()
        if lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR { folders.append(path) }
      }
    }
    return folders
  }

  /// Every file under `folder`, for a folder that appeared with files already in it.
  private func files(under folder: String) -> [String] {
    guard let entries = FolderEntries(folder) else { return [] }
    var found: [String] = []
    for entry in entries.entries {
      let path = folder + "/" + entry.name
      found.append(path)
      if entry.type == UInt8(DT_DIR) { found += files(under: path) }
    }
    return found
  }

  /// Reads every queued event and reports them as one notice (or an overflow).
  private func readEvents() {
    var changed: [String] = []
    var overflowed = false
    let bufferSize = 64 * 1024
    var buffer = [UInt8](repeating: 0, count: bufferSize)
    while true {
      let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, bufferSize) }
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else { break }
      var offset = 0
      let headerSize = MemoryLayout<inotify_event>.size
      while offset + headerSize <= count {
        let (wd, mask, nameLength) = buffer.withUnsafeBytes { raw in
          let event = raw.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
          return (event.wd, event.mask, Int(event.len))
        }
        let nameBytes = buffer[(offset + headerSize)..<(offset + headerSize + nameLength)].prefix { $0 != 0 }
        let name = String(decoding: nameBytes, as: UTF8.self)
        offset += headerSize + nameLength
        if mask & UInt32(IN_Q_OVERFLOW) != 0 {
          overflowed = true
          continue
        }
        guard let folder = paths[wd] else { continue }
        if mask & UInt32(IN_IGNORED) != 0 {
          forget(wd)
          continue
        }
        let path = name.isEmpty ? folder : folder + "/" + name
        changed.append(path)
        let isFolder = mask & UInt32(IN_ISDIR) != 0
        // A folder moved away or removed leaves its watches watching something else, or
        // nothing: its path, and the paths under it, are no longer watched by them, and a
        // folder made there later is watched afresh.
        if isFolder, mask & UInt32(IN_MOVED_FROM | IN_DELETE) != 0 { forgetPaths(under: path) }
        // A watched folder whose parent is not watched (a root) says so itself.
        if name.isEmpty, mask & UInt32(IN_MOVE_SELF) != 0, watches[PathParts.folder(of: folder)] == nil {
          forgetPaths(under: folder)
        }
        if isFolder, mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0, recursive.contains(wd) {
          // Files may have been put in it before its watch was added: they are news too.
          watch(folder: path)
          changed += files(under: path)
        }
      }
    }
    named.formUnion(changed)
    if overflowed { overflowedSinceTaken = true }
    let notice: Notice? = overflowed ? .overflowed : changed.isEmpty ? nil : .changed(changed)
    guard let notice else { return }
    guard let onNotice else {
      unreported.append(notice)
      return
    }
    onNotice(notice)
  }

  /// Drops `folder` and the folders under it from ``watches``; their watches go on and are
  /// found again by the path they have now when it is watched.
  private func forgetPaths(under folder: String) {
    for path in watches.keys where path == folder || path.hasPrefix(folder + "/") { watches.removeValue(forKey: path) }
  }

  private func forget(_ wd: Int32) {
    if let path = paths.removeValue(forKey: wd), watches[path] == wd { watches.removeValue(forKey: path) }
    recursive.remove(wd)
  }
}
