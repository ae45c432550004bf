/// A journal's file name in `.oprun/runs/` (SPEC §9): `RUN-ID.ndjson`, where the RUN-ID of a
/// run of this oprun ends in its sequence number (`20260101T120000-4242-17`), carried from
/// journal to journal. Journals are ordered by it, never by the clock that wrote their
/// headers; those named by an earlier oprun (`20260101T120000-4242`) have none, and come
/// before every journal that has one.
public struct JournalName: Sendable, Equatable {
  public static let fileExtension = ".ndjson"

  /// The RUN-ID the name says.
  public var run: String
  /// Its sequence number; nil for a journal named before there were any.
  public var sequence: Int?

  /// The name `fileName` says; nil for a file that is no journal's (another extension, a
  /// hidden or temporary file).
  public init?(fileName: String) {
    guard fileName.hasSuffix(Self.fileExtension), !fileName.hasPrefix("."),
      fileName.utf8.count > Self.fileExtension.utf8.count
    else { return nil }
    run = String(fileName.dropLast(Self.fileExtension.utf8.count))
    sequence = Self.sequence(inRun: run)
  }

  /// The name of run `run`'s journal.
  public init(run: String) {
    self.run = run
    sequence = Self.sequence(inRun: run)
  }

  public var fileName: String { run + Self.fileExtension }

  /// The sequence number a RUN-ID ends in: the last of at least three dash-separated parts,
  /// digits only; nil for an id of an earlier oprun (`DATE-PID`).
  public static func sequence(inRun run: String) -> Int? {
    // Read in place, without splitting: every run reads the name of every journal.
    let dash = UInt8(ascii: "-")
    let bytes = run.utf8
    guard let lastDash = bytes.lastIndex(of: dash), bytes[..<lastDash].contains(dash) else { return nil }
    let last = bytes[bytes.index(after: lastDash)...]
    guard (1...18).contains(last.count), last.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
    return last.reduce(0) { $0 * 10 + Int($1 - 0x30) }
  }

  /// The sequence number of the next run: one more than the highest of `names`.
  public static func nextSequence(after names: [JournalName]) -> Int {
    (names.compactMap(\.sequence).max() ?? 0) + 1
  }

  /// Whether a journal named `self`, whose header (when it could be read) says it started at
  /// `start`, comes before one named `other` started at `otherStart`: by sequence, those
  /// without one first, among them by start; the RUN-ID breaks ties.
  public func precedes(_ other: JournalName, start: Double, otherStart: Double) -> Bool {
    switch (sequence, other.sequence) {
    case (let mine?, let theirs?): return (mine, run) < (theirs, other.run)
    case (nil, _?): return true
    case (_?, nil): return false
    case (nil, nil): return (start, run) < (otherStart, other.run)
    }
  }
}
