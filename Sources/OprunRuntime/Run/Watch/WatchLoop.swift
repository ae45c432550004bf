import Glibc
import OprunCore

/// `--watch` (SPEC §13): a first run, then a cycle — a run of its own, with its RUN-ID and
/// journal — each time the content of a selected job's inputs or the manifest changes and
/// has been quiet for the delay; until a cancelling signal, which ends oprun by it.
final class WatchLoop {
  private var configuration: RunConfiguration
  private let delay: Double
  private let watcher: FileWatcher
  private var files: WatchedFiles
  private let events: WatchEvents
  /// The one warning of the kernel's watch limit has been given.
  private var warnedOfLimit = false

  init(configuration: RunConfiguration, graph: JobGraph, delay: Double) throws(SystemError) {
    self.configuration = configuration
    self.delay = delay
    events = WatchEvents(path: configuration.eventsPath)
    watcher = try FileWatcher()
    files = WatchedFiles(graph: graph, manifestPath: configuration.manifestPath)
  }

  /// Runs `first`, then a cycle after each change, never returning but by a signal's end.
  func run(first: PreparedRun) -> Int32 {
    var prepared = first
    watch()
    while true {
      let session = RunSession(plan: prepared.plan, configuration: configuration, hasher: prepared.hasher)
      var changedDuringCycle: [String] = []
      session.whileRunning = { [unowned self] loop, driver in
        watchDuringCycle(on: loop, graph: prepared.plan.graph) { changed in
          changedDuringCycle += changed
          driver.apply(.cancelChanged(self.files.jobs(reading: changed, in: prepared.plan.graph)))
        }
      }
      // A cycle's status is its own: one ended by a change, or failed, is no end of watching.
      _ = session.run()
      watcher.stopServing()
      // Later cycles add to the event stream rather than replace it, and a job that declares
      // neither inputs nor outputs runs again only when a dependency's result changed, as
      // `--resume` decides (`--force` aside, which runs every job each time).
      configuration.appendsToOutputFiles = true
      configuration.resume = true
      var changed = changedDuringCycle
      while true {
        if changed.isEmpty { changed = waitForChanges() }
        switch RunPlan.prepare(configuration) {
        case .success(let next):
          prepared = next
          files = WatchedFiles(graph: next.plan.graph, manifestPath: configuration.manifestPath)
          watch()
        case .failure(let message):
          // The manifest has errors: said, and the next change is waited for.
          RunCommandLine.writeAll(2, message)
          changed = []
          continue
        }
        break
      }
    }
  }

  /// Serves the watcher on a running cycle's `loop`: once changes are quiet for the delay, the
  /// paths whose content differs go to `onChange`, which cancels what they make stale.
  private func watchDuringCycle(on loop: EventLoop, graph: JobGraph, onChange: @escaping ([String]) -> Void) {
    var debounce = ChangeDebounce(delay: delay)
    var timer: TimerID?
    watcher.serve(on: loop) { [unowned self] notice in
      let paths: [String]
      switch notice {
      case .changed(let named): paths = named.filter { files.counts($0) }
      case .overflowed: paths = files.rescan()
      }
      guard !paths.isEmpty else { return }
      debounce.note(paths, at: loop.now())
      if let timer { loop.cancelTimer(timer) }
      timer = loop.schedule(after: delay) { [unowned self] in
        guard let batch = debounce.takeIfQuiet(at: loop.now()) else { return }
        let differing = files.changes(among: batch)
        guard !differing.isEmpty else { return }
        RunCommandLine.writeAll(2, "oprun: changed: \(describe(differing))\n")
        onChange(differing)
      }
    }
  }

  /// Watches the trees and the single files' folders, and records their content now.
  private func watch() {
    for tree in files.trees where WatchedFiles.isFolder(tree) { watcher.watch(folder: tree) }
    for folder in files.singleFolders { watcher.watch(folder: folder, recursive: false) }
    files.lookAtEverything()
    if watcher.limitReached && !warnedOfLimit {
      warnedOfLimit = true
      RunCommandLine.writeAll(
        2,
        "oprun: warning: the kernel's limit of watched folders is reached (fs.inotify.max_user_watches): "
          + "looking for changes once a second instead\n")
    }
  }

  /// Waits until files have changed in content and been quiet for the delay; the paths that
  /// changed. A cancelling signal meanwhile ends oprun by it.
  private func waitForChanges() -> [String] {
    let loop = EventLoop()
    var debounce = ChangeDebounce(delay: delay)
    var changed: [String]?
    var timer: TimerID?
    // Paths are looked at only once quiet: an editor's temporary file, written and renamed
    // over the file meanwhile, is gone by then, and the file is one change.
    func noteChanges(_ paths: [String]) {
      let counted = paths.filter { files.counts($0) }
      guard !counted.isEmpty else { return }
      debounce.note(counted, at: loop.now())
      if let timer { loop.cancelTimer(timer) }
      timer = loop.schedule(after: delay) { [unowned self] in
        guard let batch = debounce.takeIfQuiet(at: loop.now()) else { return }
        let differing = files.changes(among: batch)
        guard !differing.isEmpty else { return }
        RunCommandLine.writeAll(2, "oprun: changed: \(describe(differing))\n")
        events.changed(differing, relativeTo: manifestFolder)
        changed = differing
      }
    }
    func noteRescan() {
      let differing = files.rescan()
      if !differing.isEmpty { noteChanges(differing) }
    }
    let trap = try? SignalTrap(loop: loop, signals: [SIGINT, SIGTERM, SIGHUP]) { signal in
      SignalTrap.end(by: signal)
    }
    watcher.serve(on: loop) { [unowned self] notice in
      switch notice {
      case .changed(let paths): noteChanges(paths)
      case .overflowed: noteRescan()
      }
    }
    if watcher.limitReached { poll(on: loop, noteRescan) }
    events.waiting(files: files.fileCount)
    RunCommandLine.writeAll(2, "oprun: watching \(counted(files.fileCount, "file")) (Ctrl-C ends)\n")
    loop.run { changed != nil }
    watcher.stopServing()
    trap?.uninstall()
    return changed ?? []
  }

  /// Looks at every file once a second, where the kernel cannot watch them all.
  private func poll(on loop: EventLoop, _ rescan: @escaping () -> Void) {
    loop.schedule(after: 1) { [weak self, weak loop] in
      guard let self, let loop else { return }
      rescan()
      poll(on: loop, rescan)
    }
  }

  /// The first paths that changed (relative to the manifest's folder when under it), and how many more.
  private var manifestFolder: String { AbsolutePath.of(PathParts.folder(of: configuration.manifestPath)) }

  private func describe(_ paths: [String]) -> String {
    let folder = manifestFolder + "/"
    let shown = paths.prefix(3).map { $0.hasPrefix(folder) ? String($0.dropFirst(folder.count)) : $0 }
      .joined(separator: ", ")
    return paths.count > 3 ? shown + " and \(paths.count - 3) more" : shown
  }
}
