import Glibc
import OprunCore

/// Finding the runs of this user in progress, and choosing the one a `ctl` request is for.
extension ControlClient {
  /// A run in progress: oprun's pid and its socket.
  public struct LiveRun: Sendable, Equatable {
    public var pid: Int32
    public var socket: String

    /// What the run says of itself beside its socket; nil when it says nothing readable.
    public var description: RunDescription? {
      RunDescription.read(at: RunDescription.path(besideSocket: socket))
    }
  }

  /// Which run a request is for (SPEC §8).
  public enum Selection: Sendable, Equatable {
    /// `--pid PID`.
    case pid(Int32)
    /// `--manifest PATH`: the run whose ``RunDescription`` names that manifest.
    case manifest(String)
    /// The only run in progress.
    case only
  }

  /// Why no run could be chosen: a usage error (exit 2) whose message names the runs.
  public struct SelectionFailure: Error, Equatable, CustomStringConvertible {
    public var description: String
  }

  /// Seconds a run has to say what it is when runs are listed: 5 (a stopped run does not
  /// answer, and one such run should not hold up the list for long; a busy one on a loaded
  /// machine, or under ThreadSanitizer, takes a few seconds).
  public static let listingTimeout: Double = 5

  /// Every run of this user in progress, by pid: each socket in the folder that a process
  /// listens on. A stale one (a killed run's: a socket file nobody listens on) is removed
  /// on the way, with its description. Telling a live socket from a stale one connects and
  /// closes without a word: the run answers nothing and records nothing of it.
  public static func liveRuns(in folder: String = ControlFolder.path()) -> [LiveRun] {
    ControlFolder.sockets(in: folder).compactMap { pid, path in
      switch UnixSocket.connect(path, nonblocking: true) {
      case .connected(let fd):
        close(fd)
        return LiveRun(pid: pid, socket: path)
      case .failed(EAGAIN):
        return LiveRun(pid: pid, socket: path)  // listening, with a full backlog
      case .stale:
        if UnixSocket.isSocketFile(path) {
          unlink(path)
          unlink(RunDescription.path(besideSocket: path))
        }
        return nil
      case .missing, .failed:
        return nil
      }
    }
  }

  /// The `run` object of `run`'s status ({pid, run, manifest, started, counts}), or nil
  /// when it does not give one in time.
  public static func runObject(of run: LiveRun, timeout: Double = listingTimeout) -> JSONValue? {
    let deadline = now() + timeout
    guard case .success(let client) = connect(run.socket, deadline: deadline),
      case .success(let answer) = client.request("status", [], deadline: deadline), answer.ok
    else { return nil }
    return answer.dataObject["run"]
  }

  /// The run `selection` names among those in progress in `folder`, chosen from the folder
  /// alone: no run is sent a request.
  public static func choose(_ selection: Selection, in folder: String = ControlFolder.path()) -> Result<
    LiveRun, SelectionFailure
  > {
    let runs = liveRuns(in: folder)
    switch selection {
    case .pid(let pid):
      if let run = runs.first(where: { $0.pid == pid }) { return .success(run) }
      return .failure(SelectionFailure(description: "no run with pid \(pid) is in progress" + listing(runs)))
    case .manifest(let path):
      let wanted = AbsolutePath.of(path)
      let matching = runs.filter { run in run.description.map { samePath($0.manifest, wanted) } ?? false }
      return pickOne(matching, of: runs, what: "of '\(wanted)' ")
    case .only:
      return pickOne(runs, of: runs, what: "of this user ")
    }
  }

  private static func pickOne(_ candidates: [LiveRun], of runs: [LiveRun], what: String) -> Result<
    LiveRun, SelectionFailure
  > {
    switch candidates.count {
    case 1:
      return .success(candidates[0])
    case 0:
      return .failure(SelectionFailure(description: "no run \(what)is in progress" + listing(runs)))
    default:
      let pids = candidates.map { String($0.pid) }.joined(separator: ", ")
      return .failure(
        SelectionFailure(description: "several runs \(what)are in progress (pids \(pids)): choose one with --pid"))
    }
  }

  /// ` (runs in progress: pids 12, 34)`, or nothing when there are none.
  private static func listing(_ runs: [LiveRun]) -> String {
    runs.isEmpty ? "" : " (runs in progress: pids " + runs.map { String($0.pid) }.joined(separator: ", ") + ")"
  }

  private static func samePath(_ a: String, _ b: String) -> Bool {
    AbsolutePath.sameFile(a, b)
  }
}
