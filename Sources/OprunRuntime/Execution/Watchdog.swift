import COprunSystem
import Glibc

/// The process that ends a run's jobs when oprun dies without a chance to (SIGKILL, the OOM
/// killer, a crash): told every process group the run creates, it sends them SIGTERM (and
/// SIGCONT) when oprun's end of their channel closes without the run having ended, and
/// SIGKILL after the grace period, as a systemd unit's processes are stopped; then it removes
/// the run's cgroups, killing what they still hold.
///
/// One record of four bytes per message, sent without waiting: a group that is gone is
/// not sent on its own but with the next group listed, so a job costs one `send(2)`.
/// Not thread-safe: use it from the event loop's thread.
final class Watchdog {
  /// The watchdog's pid (not a child of oprun's: nothing here reaps it).
  let pid: Int32
  /// oprun's end of the channel; -1 once closed.
  private var channel: Int32
  /// Records not yet taken by the channel, in order.
  private var unsent: [UInt8] = []

  /// Starts a watchdog that gives the groups it is told `grace` seconds between SIGTERM
  /// and SIGKILL, then empties and removes the run's `cgroupFolders` (each job's cgroup in
  /// them, then the folder).
  static func start(grace: Double, cgroupFolders: [String] = []) -> Result<Watchdog, SystemError> {
    var channel: Int32 = -1
    let nanoseconds = Int64(min(max(grace, 0), Double(Int64.max / 2) / 1e9) * 1e9)
    // Each folder ended by a NUL, the list by an empty one.
    let folders = cgroupFolders.isEmpty ? nil : cgroupFolders.map { Array($0.utf8CString) }.joined() + [0]
    let pid =
      folders.map { list in
        list.withUnsafeBufferPointer { oprun_watchdog_start(nanoseconds, $0.baseAddress, &channel) }
      } ?? oprun_watchdog_start(nanoseconds, nil, &channel)
    guard pid > 0 else { return .failure(SystemError("start the watchdog")) }
    return .success(Watchdog(pid: pid, channel: channel))
  }

  private init(pid: Int32, channel: Int32) {
    self.pid = pid
    self.channel = channel
  }

  /// Without ``dismiss()``, the watchdog ends every group it was told of.
  deinit {
    if channel >= 0 { close(channel) }
  }

  /// Lists a process group the run has just created.
  func watch(_ group: Int32) {
    append(group)
    sendUnsent()
  }

  /// oprun's end of the channel, for a new process to announce itself on; -1 once closed.
  var channelDescriptor: Int32 { channel }

  /// What a new process sends on the channel just before its command runs (see
  /// `oprun_spawn_plan`): the records not sent yet, then its own, the slot it writes its
  /// pid into. Sent by the process itself, so that no job can run unlisted, even for a
  /// moment; that is still the run's one `send(2)` per group.
  func announcement() -> [UInt8] {
    unsent + [0, 0, 0, 0]
  }

  /// What became of an ``announcement()``: `sent` of its bytes went (-1: none); `pid` is
  /// the process that started, nil when it did not (its slot holds its pid, if it sent).
  func announced(_ announcement: [UInt8], sent: Int, by pid: Int32?) {
    guard channel >= 0, !announcement.isEmpty else { return }
    var announcement = announcement
    let slot = announcement.count - MemoryLayout<Int32>.size
    if sent >= 0 {
      unsent = Array(announcement[sent...])
      if pid == nil {
        forget(announcement.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: slot, as: Int32.self) })
      }
    } else if let pid {
      withUnsafeBytes(of: pid) { announcement.replaceSubrange(slot..., with: $0) }
      unsent = announcement
    } else {
      return
    }
    sendUnsent()
  }

  /// Unlists a group that has no process left, so that the number, once the kernel hands
  /// it out again, is not signalled; sent with the next ``watch(_:)``.
  func forget(_ group: Int32) {
    append(-group)
  }

  /// The run has ended and left nothing behind: the watchdog exits without signalling.
  func dismiss() {
    guard channel >= 0 else { return }
    // What is left of a record cut by a short send goes first; whole records are moot now.
    unsent = Array(unsent.prefix(unsent.count % MemoryLayout<Int32>.size))
    append(0)
    sendUnsent()
    // Only a watchdog that is stopped, or far behind, has left no room: give it a moment.
    if !unsent.isEmpty {
      var entry = pollfd(fd: channel, events: Int16(POLLOUT), revents: 0)
      if poll(&entry, 1, 1000) == 1 { sendUnsent() }
    }
    close(channel)
    channel = -1
  }

  private func append(_ record: Int32) {
    withUnsafeBytes(of: record) { unsent.append(contentsOf: $0) }
  }

  private func sendUnsent() {
    guard channel >= 0, !unsent.isEmpty else { return }
    let sent = unsent.withUnsafeBytes { send(channel, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL)) }
    if sent == unsent.count {
      unsent.removeAll(keepingCapacity: true)
    } else if sent > 0 {
      unsent.removeFirst(sent)
    } else if errno != EAGAIN && errno != EINTR {
      // The watchdog is gone (someone killed it): nothing more to tell.
      unsent = []
    }
  }
}
