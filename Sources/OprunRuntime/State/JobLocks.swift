import Glibc
import OprunCore

/// The locks that keep two runs in one folder from running one job with outputs at once
/// (SPEC §10): a run holds a job's lock from before it looks at the job's files until the
/// job's record is written, so the other run waits and then finds the job up to date, where
/// both would otherwise write its outputs together and one record vouch for what both left.
///
/// One file per job in `.oprun/locks/`, named by a digest of the manifest's file name and
/// the job's name (its instance's, for a matrix job): what a record is kept under, so the
/// lock guards exactly what one record says. An exclusive `flock` on it is the lock; the
/// kernel drops it with the descriptor, so a run killed by SIGKILL blocks no later run. The
/// file says who holds it to run the job (`held PID TIME CLOCK`, written once the job is found
/// to run) or last released it after running it (`free PID TIME CLOCK`, written after the
/// record), TIME on CLOCK_MONOTONIC and CLOCK naming that clock: the boot and the time
/// namespace it was read in. Monotonic times compare only within one clock — not across a
/// reboot, a container's time namespace, or hosts sharing `.oprun/` over NFS (where `flock`
/// works too) — so a stamp of another clock reads as changed: the locks order runs of one
/// machine, and runs elsewhere are only never trusted. A run that finds the job up to date
/// writes nothing there: it changed no file, and its record says what the last one said.
/// Files are opened without following a link, close-on-exec, mode 0600, in a `.oprun/` that
/// ``StateFolder/open()`` found fit; they are never removed (removing a lock file races with
/// a run that has it open), and `.oprun/` may still be deleted at any time.
public class JobLocks {
  /// The folder of lock files.
  let folder: String
  private let state: StateFolder
  private let manifestName: String
  /// CLOCK_MONOTONIC seconds when this run began to read the records and look at the files:
  /// a lock released after that, or left held by a run that died, means another run may
  /// have changed the job's files or record since.
  private let lookedAt: Double
  private var folderIsMade = false

  /// The locks of the manifest at `manifestPath`, for a run that began to read its records
  /// and files at `lookedAt` (``MonotonicClock``).
  public init(manifestPath: String, lookedAt: Double) {
    state = StateFolder(manifestPath: manifestPath)
    folder = state.locks
    manifestName = JournalFolder(manifestPath: manifestPath).manifestName
    self.lookedAt = lookedAt
  }

  /// What trying to take a job's lock came to.
  enum Taking {
    /// Taken: held until ``JobLock/release()``. `changedSince`: another run held it after this
    /// run read the records and began to look at files, so neither may be trusted for it.
    case taken(JobLock, changedSince: Bool)
    /// Another run holds it now; `pid` is that oprun's, when its lock file says (once it has
    /// found the job to run).
    case heldElsewhere(pid: Int32?)
    /// This process may open no more files now (EMFILE, ENFILE): one of its own locks, or
    /// anything else it has open, must be closed first.
    case outOfDescriptors
    /// The lock cannot be had (a file that is not this user's regular file, linked once; an error): why.
    case unavailable(String)
  }

  /// The lock file of the job named `job`.
  func file(of job: String) -> String {
    folder + "/" + ContentDigest.of(Array((manifestName + "\n" + job).utf8))
  }

  /// Tries to take the lock of the job named `job`, without waiting.
  func take(_ job: String) -> Taking {
    take(job, file: file(of: job))
  }

  /// Tries to take the lock of the job named `job`, whose lock file is `path` (``file(of:)``,
  /// which a caller trying it again and again keeps), without waiting.
  func take(_ job: String, file path: String) -> Taking {
    if !folderIsMade {
      if case .failure(let error) = state.makeFolder(folder) { return .unavailable(error.message) }
      folderIsMade = true
    }
    let descriptor = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else {
      if errno == EMFILE || errno == ENFILE { return .outOfDescriptors }
      return .unavailable("cannot open '\(path)': \(errorMessage(errno))")
    }
    var status = stat()
    // A hard link planted in a `locks/` others may write would have the stamps written over
    // the start of the file it names: only a file of this user's, linked once, is a lock file.
    guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_uid == geteuid(),
      status.st_nlink == 1
    else {
      close(descriptor)
      return .unavailable("'\(path)' is not a regular file of this user's alone")
    }
    while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
      let failure = errno
      if failure == EINTR { continue }
      let holder = LockStamp(readingFrom: descriptor)
      close(descriptor)
      if failure == EWOULDBLOCK { return .heldElsewhere(pid: holder.flatMap { $0.isHeld ? $0.pid : nil }) }
      return .unavailable("cannot lock '\(path)': \(errorMessage(failure))")
    }
    // An empty file was never held to run the job (a holder stamps it before the job
    // starts); one that cannot be read may be anything.
    let changedSince: Bool =
      switch LockStamp(readingFrom: descriptor) {
      case nil: !Self.isEmpty(descriptor)
      case let stamp?: stamp.isHeld || !stamp.isOfThisClock || stamp.time >= lookedAt
      }
    return .taken(JobLock(descriptor: descriptor), changedSince: changedSince)
  }

  private static func isEmpty(_ descriptor: Int32) -> Bool {
    var status = stat()
    return fstat(descriptor, &status) == 0 && status.st_size == 0
  }
}

/// A job's lock, held until ``release()``, or until it is let go of or the process ends.
final class JobLock {
  private var descriptor: Int32
  /// The job was found to run: the file says so, and says when it was released.
  private var isRunning = false

  init(descriptor: Int32) {
    self.descriptor = descriptor
  }

  /// Whether it is held still: not released.
  var isHeld: Bool { descriptor >= 0 }

  /// The job runs: the file names this oprun as its holder (what a run waiting for it shows),
  /// and one that finds it so later knows this run may have died with the job half done.
  /// Nil when written, else why not (``LockStamp/write(to:)``: the file then reads as changed).
  func markRunning() -> String? {
    guard descriptor >= 0, !isRunning else { return nil }
    isRunning = true
    return LockStamp(isHeld: true, pid: getpid(), time: MonotonicClock.now()).write(to: descriptor)
  }

  /// Releases it; after a job that ran, once its record is written, the file says so first:
  /// a run that takes it later knows the files and the record may be newer than what it read.
  /// Nil when nothing was to be written or it was, else why not.
  @discardableResult
  func release() -> String? {
    guard descriptor >= 0 else { return nil }
    let failure =
      isRunning ? LockStamp(isHeld: false, pid: getpid(), time: MonotonicClock.now()).write(to: descriptor) : nil
    close(descriptor)
    descriptor = -1
    return failure
  }

  /// Let go without being released (the run ended before the job finished, and no record of
  /// it was written): the file keeps saying `held`, as a run that died would leave it, so
  /// that the next run to take it knows the job may have changed its files.
  deinit {
    if descriptor >= 0 { close(descriptor) }
  }
}

/// What a lock file says: `held PID TIME CLOCK` or `free PID TIME CLOCK`, one line padded to
/// a fixed width so that each writing replaces the last whole, with one `pwrite` at the start.
struct LockStamp: Equatable {
  var isHeld: Bool
  var pid: Int32
  /// CLOCK_MONOTONIC seconds.
  var time: Double
  /// The monotonic clock `time` was read on (``thisClock``).
  var clock: String

  static let width = 128

  /// This process's monotonic clock: the machine's boot id and the time namespace's inode,
  /// `BOOT-ID/TIME-NS`; `unknown` when either cannot be read, and then no stamp, not even
  /// one of its own, is taken to be of this clock.
  static let thisClock: String = {
    guard case .success(let bytes) = FileContents.readPrefix(path: "/proc/sys/kernel/random/boot_id", count: 64)
    else { return unknownClock }
    let boot = String(decoding: bytes, as: UTF8.self).filter { !$0.isWhitespace }
    var namespace = stat()
    guard !boot.isEmpty, stat("/proc/self/ns/time", &namespace) == 0 else { return unknownClock }
    return boot + "/" + String(namespace.st_ino)
  }()
  private static let unknownClock = "unknown"

  /// Whether its time was read on this process's clock, and may be compared with its own.
  var isOfThisClock: Bool { clock == Self.thisClock && clock != Self.unknownClock }

  init(isHeld: Bool, pid: Int32, time: Double, clock: String = LockStamp.thisClock) {
    self.isHeld = isHeld
    self.pid = pid
    self.time = time
    self.clock = clock
  }

  /// The stamp in the file open as `descriptor`; nil when it holds none that can be read.
  init?(readingFrom descriptor: Int32) {
    var bytes = [UInt8](repeating: 0, count: Self.width)
    let count = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
    guard count > 0 else { return nil }
    self.init(line: String(decoding: bytes[..<count], as: UTF8.self))
  }

  /// The stamp `line` spells.
  init?(line: String) {
    let words = line.split(whereSeparator: { $0 == " " || $0 == "\n" })
    guard words.count == 4, words[0] == "held" || words[0] == "free", let pid = Int32(words[1]),
      let time = Double(words[2]), time.isFinite
    else { return nil }
    self.init(isHeld: words[0] == "held", pid: pid, time: time, clock: String(words[3]))
  }

  /// The line, padded with spaces to ``width``.
  var line: String {
    let text = "\(isHeld ? "held" : "free") \(pid) \(time) \(clock)"
    return text + String(repeating: " ", count: max(Self.width - 1 - text.utf8.count, 0)) + "\n"
  }

  /// Writes it over the file's start, whole; nil when done, else why not. A stamp not written
  /// whole (ENOSPC, EDQUOT, EIO) must not leave an older one, or half of two, to be read as
  /// nothing changed: the file is cut to one byte, which no stamp is, so that whoever takes
  /// the lock next reads it as changed (cutting a file needs no block of the disk).
  func write(to descriptor: Int32) -> String? {
    let bytes = Array(line.utf8)
    var written = -1
    repeat {
      written = bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
    } while written < 0 && errno == EINTR
    guard written != bytes.count else { return nil }
    let reason = written < 0 ? errorMessage(errno) : "only \(written) of \(bytes.count) bytes written"
    _ = ftruncate(descriptor, 1)
    return reason
  }
}
