import COprunSystem
import Glibc

/// Sends `signal` to every process of the group `processGroup` (kill(-pgid)).
/// Returns false when the group has no process left (ESRCH) or the signal was
/// refused; a vanished group is the normal end of a race, not an error.
@discardableResult
public func signalGroup(_ processGroup: Int32, _ signal: Int32) -> Bool {
  precondition(processGroup > 1, "refusing to signal process group \(processGroup)")
  return kill(-processGroup, signal) == 0
}

/// Whether any process (a zombie included) is still in the group.
public func processGroupExists(_ processGroup: Int32) -> Bool {
  signalGroup(processGroup, 0) || errno == EPERM
}

/// Makes oprun the reaper of what its jobs leave behind: orphaned descendants become its
/// children instead of init's, so that the run can find and reap them itself (an init that
/// reaps late would otherwise keep a finished group looking alive).
@discardableResult
public func becomeChildSubreaper() -> Bool {
  oprun_become_child_subreaper() == 0
}
