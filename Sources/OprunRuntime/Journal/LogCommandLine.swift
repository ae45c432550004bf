import Glibc
import OprunCore

/// `oprun log` (SPEC §9): a manifest's past runs, or the jobs of one run, read from the
/// journals in `.oprun/runs/` beside the manifest; a RUN-ID alone is looked for in
/// `./.oprun/runs/`, then in the index of this user's runs (``RunIndex``). Prints them and says
/// how it went as an exit status: 0, or 2 for an unknown manifest or RUN-ID or a journal it
/// cannot read.
public enum LogCommandLine {
  /// What the arguments ask for.
  enum Request: Equatable {
    /// Every run of the manifest.
    case runs(manifest: String)
    /// The jobs of run `id`, in the folder of `manifest` (`./jobs.yaml`'s when not named).
    case run(id: String, manifest: String?)
  }

  /// Shows what `arguments` (`[MANIFEST]`, `RUN-ID` or `MANIFEST RUN-ID`) ask for, as JSON
  /// with `json`.
  public static func execute(arguments: [String], json: Bool) -> Int32 {
    switch request(for: arguments) {
    case .runs(let manifest):
      if let problem = missing(manifest) ?? refusal(of: manifest) { return fail(problem) }
      return listRuns(of: manifest, json: json)
    case .run(let id, let manifest):
      if let manifest, let problem = missing(manifest) { return fail(problem) }
      return showRun(id, manifest: manifest, json: json)
    }
  }

  /// A lone argument is a manifest when it names an existing file or ends in `.yaml` or
  /// `.yml`; otherwise it is a RUN-ID.
  static func request(for arguments: [String]) -> Request {
    switch arguments.count {
    case 0: return .runs(manifest: ManifestFile.defaultPath)
    case 1:
      let argument = arguments[0]
      return ManifestFile.canBe(argument) ? .runs(manifest: argument) : .run(id: argument, manifest: nil)
    default: return .run(id: arguments[1], manifest: arguments[0])
    }
  }

  private static func listRuns(of manifest: String, json: Bool) -> Int32 {
    let folder = JournalFolder(manifestPath: manifest)
    let (entries, warnings) = folder.entries()
    warnings.forEach(warn)
    var runs: [PastRun] = []
    for entry in entries {
      // A closing line that says everything a row shows (this oprun writes such lines)
      // spares reading the whole journal: a run of 100,000 jobs wrote 30 MB.
      if let header = entry.header, let end = folder.end(of: entry), end.resumed != nil {
        var closed = Journal()
        closed.end = end
        runs.append(PastRun(header: header, journal: closed))
        continue
      }
      switch folder.read(entry) {
      case .failure(let error):
        warn("cannot read the journal \(error.message); it is not listed")
      case .success(let journal):
        if let warning = JournalFolder.warning(about: journal, in: entry.file, for: .log) { warn(warning) }
        // A damaged header leaves the run its name says, started when its first job did.
        let header =
          entry.header
          ?? JournalHeader(
            run: entry.name.run, manifest: manifest, start: journal.records.first?.start ?? 0, oprun: "", args: [],
            targets: [])
        runs.append(PastRun(header: header, journal: journal))
      }
    }
    let text =
      json
      ? RunHistoryText.runsJSON(runs)
      : RunHistoryText.runs(runs, manifest: manifest, folder: folder.path)
    RunCommandLine.writeAll(STDOUT_FILENO, text)
    return ExitStatus.success
  }

  /// The jobs of run `id`, from its journal beside `manifest`; or, when none is named, beside
  /// `./jobs.yaml`, else where the index of this user's runs says it is (``RunSearch``).
  private static func showRun(_ id: String, manifest: String?, json: Bool) -> Int32 {
    switch RunSearch.journal(ofRun: id, manifest: manifest, defaultManifest: ManifestFile.defaultPath) {
    case .journal(let file):
      return show(file, json: json)
    case .refused(let problem), .unreadable(let problem):
      return fail(problem)
    case .gone(let file):
      return fail(
        "no run '\(id)': the index of runs names its journal \(file), which is gone (the journals of a manifest's "
          + "last \(JournalFolder.keptRuns) runs are kept)")
    case .unknown(let places, let runs, let indexProblem):
      if let indexProblem { warn("the index of runs is not read: \(indexProblem)") }
      let suggestion = Suggestion.closest(to: id, among: runs).map(Suggestion.didYouMean) ?? ""
      let listing = manifest.map { "'oprun log \($0)'" } ?? "'oprun log'"
      return fail("no run '\(id)' in \(places)\(suggestion); \(listing) lists the runs")
    }
  }

  /// The jobs of the run whose journal is `file`.
  private static func show(_ file: String, json: Bool) -> Int32 {
    switch JournalFolder.read(file: file, keepingLines: json) {
    case .failure(let error):
      return fail("cannot read the journal \(error.message)")
    case .success(let journal):
      if let warning = JournalFolder.warning(about: journal, in: file, for: .log) { warn(warning) }
      RunCommandLine.writeAll(
        STDOUT_FILENO, json ? RunHistoryText.journalJSON(journal) : RunHistoryText.jobs(of: journal))
      return ExitStatus.success
    }
  }

  /// Why the journals beside `manifest` are not read: a `.oprun/` another user controls
  /// (SPEC §9); nil when they are.
  private static func refusal(of manifest: String) -> String? {
    RunSearch.refusal(of: StateFolder(manifestPath: manifest))
  }

  /// Why `manifest` cannot be the manifest whose runs are shown; nil when it can.
  private static func missing(_ manifest: String) -> String? {
    var status = stat()
    guard stat(manifest, &status) == 0 else {
      return "no manifest '\(manifest)': \(errorMessage(errno))"
    }
    return status.st_mode & S_IFMT == S_IFDIR ? "no manifest '\(manifest)': it is a directory" : nil
  }

  private static func warn(_ message: String) {
    RunCommandLine.writeAll(STDERR_FILENO, "oprun: warning: " + message + "\n")
  }

  private static func fail(_ message: String) -> Int32 {
    RunCommandLine.writeAll(STDERR_FILENO, "oprun: error: " + message + "\n")
    return ExitStatus.usage
  }
}
