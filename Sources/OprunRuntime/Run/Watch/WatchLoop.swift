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
  /// How the last cycle ended, and when.
  private var lastCycle: (summary: RunSummary?, endedAt: Double)?
  /// What the last cycle's walks were lent and found, and the folders' watches as it began.
  private var lastLooks: WatchedLooks?
  private var watchesAtLastLooks: [String: Int32] = [:]

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
    // What runs while the manifest's file has errors (SPEC §13): the last manifest read whole.
    var lastGood = first.plan.graph
    var manifestIsBroken = false
    watch()
    first.hasher?.walk(with: nextLooks())
    while true {
      let session = RunSession(plan: prepared.plan, configuration: configuration, hasher: prepared.hasher)
      var changedDuringCycle: [String] = []
      session.whileRunning = { [unowned self] loop, driver in
        watchDuringCycle(on: loop) { changed in
          changedDuringCycle += changed
          let named = changed.prefix(RunEvent.watchedPathsNamed).map(self.relative)
          driver.apply(
            .filesChanged(
              paths: named, count: changed.count, jobs: self.files.jobs(reading: changed, in: prepared.plan.graph)))
        }
      }
      // A cycle's status is its own: one ended by a change, or failed, is no end of watching.
      _ = session.run()
      lastCycle = (session.summary, MonotonicClock.now())
      watcher.stopServing()
      // Later cycles add to the event stream rather than replace it, and a job that declares
      // neither inputs nor outputs runs again only when a dependency's result changed, as
      // `--resume` decides (`--force` aside, which runs every job each time).
      configuration.appendsToOutputFiles = true
      configuration.resume = true
      var changed = changedDuringCycle
      while true {
        if changed.isEmpty { changed = waitForChanges(graph: prepared.plan.graph) }
        // (A closure over self, never `files.isManifestFile`: that partial application kept a
        // copy of `files` alive, and each change recorded later copied every watched file's look.)
        let manifestChanged = changed.contains { files.isManifestFile($0) }
        // The manifest is read again when it changed; while it has errors, the last good one runs.
        let rereads = !manifestIsBroken || manifestChanged
        switch RunPlan.prepare(configuration, loaded: rereads ? nil : lastGood, looks: nextLooks()) {
        case .success(let next):
          prepared = next
          if rereads {
            lastGood = next.plan.graph
            manifestIsBroken = false
          } else {
            RunCommandLine.writeAll(2, Self.runningLastGood)
          }
          // What is watched follows the manifest; after a change to inputs alone, what the
          // watcher knows is already up to date, and the cycle starts without looking again.
          if manifestChanged {
            files = WatchedFiles(graph: next.plan.graph, manifestPath: configuration.manifestPath)
            watch()
          }
        case .failure(let message):
          RunCommandLine.writeAll(2, message)
          manifestIsBroken = true
          // The errors are said; what else changed runs with the last good manifest.
          let others = changed.filter { !files.isManifestFile($0) }
          changed = []
          guard rereads, !others.isEmpty,
            case .success(let next) = RunPlan.prepare(configuration, loaded: lastGood, looks: nextLooks())
          else { continue }
          RunCommandLine.writeAll(2, Self.runningLastGood)
          prepared = next
        }
        break
      }
    }
  }

  static let runningLastGood = "oprun: running the last good manifest until its errors are fixed\n"

  /// What the next cycle's walks are lent (SPEC §13): the statuses the last cycle's walks
  /// found, but of the files the kernel named since it began (whatever the filters make of
  /// them: a job's output is no change to watch, but it may be another job's input) and of
  /// folders not watched without a break since; nothing after the kernel's queue overflowed,
  /// or while the watcher polls. Events still queued are read first: a change made before
  /// this moment is among those named.
  private func nextLooks() -> WatchedLooks {
    watcher.readQueued()
    let (named, overflowed) = watcher.takeNamed()
    let watches = watcher.folderWatches
    let looks =
      if let lastLooks, !overflowed, !watcher.limitReached {
        WatchedLooks(
          earlier: lastLooks.foundLooks, named: named,
          steadyFolders: Set(watches.filter { watchesAtLastLooks[$0.key] == $0.value }.keys))
      } else {
        WatchedLooks()
      }
    (lastLooks, watchesAtLastLooks) = (looks, watches)
    return looks
  }

  /// Serves the watcher on a running cycle's `loop`: the paths whose content differs go to
  /// `onChange`, which cancels what they make stale.
  private func watchDuringCycle(on loop: EventLoop, onChange: @escaping ([String]) -> Void) {
    _ = serveChanges(on: loop, onChange)
  }

  /// Serves the watcher on `loop`: what the kernel names (or a rescan finds, after its queue
  /// overflowed), once changes have been quiet for the delay, goes to `onChange` — only the
  /// paths whose content differs. Returns the rescan that polling calls, where the kernel
  /// cannot watch everything.
  private func serveChanges(on loop: EventLoop, _ onChange: @escaping ([String]) -> Void) -> () -> Void {
    var debounce = ChangeDebounce(delay: delay)
    var timer: TimerID?
    // Paths are looked at only once quiet: an editor's temporary file, written and renamed
    // over the file meanwhile, is gone by then, and the file is one change.
    func note(_ paths: [String]) {
      guard !paths.isEmpty else { return }
      debounce.note(paths, at: loop.now())
      if let timer { loop.cancelTimer(timer) }
      timer = loop.schedule(after: delay) { [unowned self] in
        guard let batch = debounce.takeIfQuiet(at: loop.now()) else { return }
        let differing = files.changes(among: batch)
        guard !differing.isEmpty else { return }
        onChange(differing)
      }
    }
    watcher.serve(on: loop) { [unowned self] notice in
      switch notice {
      case .changed(let named): note(named.filter { files.counts($0) })
      case .overflowed: note(files.rescan())
      }
    }
    return { [unowned self] in note(files.rescan()) }
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
  /// changed. A cancelling signal meanwhile ends oprun by it. `graph` is the last cycle's.
  private func waitForChanges(graph: JobGraph) -> [String] {
    let loop = EventLoop()
    var changed: [String]?
    let humanFD = RunSession.humanFileDescriptor(configuration)
    var statusLine = RunSession.isCapableTerminal(humanFD) ? WatchStatusLine(terminal: humanFD) : nil
    func drawStatusLine() {
      guard statusLine != nil, changed == nil else { return }
      let age = lastCycle.map { MonotonicClock.now() - $0.endedAt } ?? 0
      statusLine?.draw(
        WatchStatusLine.text(
          files: files.fileCount, last: lastCycle?.summary, age: age, columns: Terminal.columns(humanFD) ?? 80))
    }
    func redrawEverySecond() {
      loop.schedule(after: 1) {
        drawStatusLine()
        if changed == nil { redrawEverySecond() }
      }
    }
    let rescan = serveChanges(on: loop) { [unowned self] differing in
      statusLine?.erase()
      let named = differing.prefix(RunEvent.watchedPathsNamed).map(relative)
      RunCommandLine.writeAll(2, "oprun: changed: \(RunEvent.changedPathsText(named, count: differing.count))\n")
      events.record(.watchChanged(paths: named, count: differing.count), graph: graph)
      changed = differing
    }
    let trap = try? SignalTrap(loop: loop, signals: [SIGINT, SIGTERM, SIGHUP]) { signal in
      statusLine?.erase()
      SignalTrap.end(by: signal)
    }
    if watcher.limitReached { poll(on: loop, rescan) }
    events.record(.watchWaiting(files: files.fileCount), graph: graph)
    if statusLine == nil {
      RunCommandLine.writeAll(2, "oprun: watching \(counted(files.fileCount, "file")) (Ctrl-C ends)\n")
    } else {
      drawStatusLine()
      redrawEverySecond()
    }
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

  private var manifestFolder: String { AbsolutePath.of(PathParts.folder(of: configuration.manifestPath)) }

  /// `path` relative to the manifest's folder when under it, as the lines and events name it.
  private func relative(_ path: String) -> String {
    let folder = manifestFolder + "/"
    return path.hasPrefix(folder) ? String(path.dropFirst(folder.count)) : path
  }
}
