import Glibc
import OprunCore

/// A pattern ready for a walk: the folder it starts from and the components matched below it.
struct WalkPattern {
  /// Absolute and resolved: the pattern's literal prefix.
  var base: String
  var rest: [PathPatternComponent]
  /// Only a folder matches it (it ended in `/`).
  var namesFolder: Bool
  /// It adds files, so folders are walked for it. A pattern that only removes files (an
  /// exclusion, a job's outputs) is matched where others lead the walk, never leads it.
  var leadsWalk: Bool

  /// `pattern` as written in a job whose folder is `folder`. A prefix that leads through a
  /// link to somewhere under `manifestFolder` (`here` for a link to `.`, `bl` for one to
  /// `build`, `/elsewhere/link-to-here/src`), or to a folder above it, is taken by where it
  /// leads: each file under the manifest's folder is recorded by one path however it was
  /// named, so that `.oprun/` and the job's outputs are told apart as always. A link that
  /// leads elsewhere keeps its name.
  init(_ pattern: PathPattern, from folder: String, manifestFolder: String, leadsWalk: Bool) {
    let (prefix, rest) = pattern.literalPrefix
    let start = pattern.isAbsolute ? "/" : folder
    var base = LexicalPath.resolve(prefix.joined(separator: "/"), from: start)
    let resolved = AbsolutePath.of(base)
    if resolved != base, LexicalPath.isWithin(resolved, manifestFolder) || LexicalPath.isWithin(manifestFolder, resolved) {
      base = resolved
    }
    self.base = base
    self.rest = rest
    namesFolder = pattern.namesFolder
    self.leadsWalk = leadsWalk
  }

  /// Where a walk stands in this pattern at a folder: which components come next.
  struct Progress {
    /// Indices into `rest`, closed over `**` matching nothing; `rest.count` when all matched.
    var positions: [Int]
    /// A folder above matched: every file below does.
    var matchesEverything: Bool

    static let everything = Progress(positions: [], matchesEverything: true)
    var isLive: Bool { matchesEverything || !positions.isEmpty }
  }

  /// The progress at `base` itself, a folder.
  var progressAtBase: Progress {
    let start = closed([0])
    return start.contains(rest.count) ? .everything : Progress(positions: start, matchesEverything: false)
  }

  /// Steps `progress` over the entry `name` in the folder it was reached at: whether the
  /// entry (a folder when `isFolder`) is matched, and the progress inside it when a folder.
  func step(_ progress: Progress, name: String, isFolder: Bool) -> (matched: Bool, inside: Progress) {
    if progress.matchesEverything { return (true, .everything) }
    var next: [Int] = []
    for position in progress.positions where position < rest.count {
      switch rest[position] {
      case .anyDepth: next.append(position)
      case .literal(let literal): if literal == name { next.append(position + 1) }
      case .wildcard(let wildcard): if Self.fnmatches(wildcard, name) { next.append(position + 1) }
      }
    }
    let positions = closed(next)
    guard positions.contains(rest.count), !namesFolder || isFolder else {
      return (false, Progress(positions: positions, matchesEverything: false))
    }
    return (true, .everything)
  }

  /// `positions` with every position after a `**` added (it may match nothing), each once.
  private func closed(_ positions: [Int]) -> [Int] {
    var result: [Int] = []
    for var position in positions {
      while !result.contains(position) {
        result.append(position)
        guard position < rest.count, rest[position] == .anyDepth else { break }
        position += 1
      }
    }
    return result
  }

  /// fnmatch(3) with no flags: `*` and `?` match a leading dot too, as SPEC §10 says.
  static func fnmatches(_ pattern: String, _ name: String) -> Bool {
    fnmatch(pattern, name, 0) == 0
  }
}
