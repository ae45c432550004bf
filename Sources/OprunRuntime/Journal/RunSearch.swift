import Glibc
import OprunCore

/// Where the journal of a run named by its RUN-ID is (SPEC §9): beside a manifest named, or,
/// when none is, in `./.oprun/runs/`, then where the index of this user's runs (``RunIndex``)
/// says. `oprun log RUN-ID` shows what it finds, `oprun report` takes a failure's last lines
/// from it. A `.oprun/` another user controls is never looked into.
enum RunSearch {
  /// What the search came to.
  enum Found {
    /// The run's journal.
    case journal(String)
    /// The `.oprun/` that holds it, or that was to be looked in, is another user's: why.
    case refused(String)
    /// A journal that is there cannot be looked at.
    case unreadable(String)
    /// The index names its journal, which is gone.
    case gone(String)
    /// Found nowhere: where it was looked for, the RUN-IDs there (for a suggestion), and why
    /// the index could not be read, when it could not.
    case unknown(places: String, runs: [String], indexProblem: String?)
  }

  /// Looks for run `id`'s journal beside `manifest`, or, when nil, as the type says.
  static func journal(ofRun id: String, manifest: String?, defaultManifest: String) -> Found {
    let folder = JournalFolder(manifestPath: manifest ?? defaultManifest)
    let refused = refusal(of: folder.state)
    if let refused, manifest != nil { return .refused(refused) }
    let isRunID = !id.isEmpty && !id.hasPrefix(".") && !id.contains("/")
    if refused == nil, isRunID {
      let file = folder.file(ofRun: id)
      if access(file, F_OK) == 0 { return .journal(file) }
      if errno != ENOENT { return .unreadable("cannot read the journal \(file): \(errorMessage(errno))") }
    }
    let index = manifest == nil ? RunIndex.ofThisUser() : nil
    var indexProblem: String?
    if let index, isRunID {
      switch index.lookUp(run: id) {
      case .success(.journal(let file)):
        return refusal(of: StateFolder(holdingJournal: file)).map(Found.refused) ?? .journal(file)
      case .success(.gone(let file)):
        return .gone(file)
      case .success(.unknown):
        break
      case .failure(let problem):
        indexProblem = problem.message
      }
    }
    if let refused { return .refused(refused) }
    let places = folder.path + (index.map { " nor in the index of runs \($0.file)" } ?? "")
    return .unknown(places: places, runs: folder.runIDs() + (index?.runIDs() ?? []), indexProblem: indexProblem)
  }

  /// Why the journals in `state` are not read: a `.oprun/` another user controls; nil when they are.
  static func refusal(of state: StateFolder) -> String? {
    guard case .failure(let refusal) = state.open() else { return nil }
    return "\(refusal.problem): its journals are not read (remove it, and oprun makes one of its own)"
  }
}
