/// A stable hash of what a job runs (SPEC §9), so that a later run can tell whether the job
/// would do the same thing again.
///
/// In it: the job's commands (in order), its environment from the manifest (top-level `env`
/// with the job's own over it, by name: the order they are written in does not count), its
/// working directory (relative to the manifest's folder, so that a clone elsewhere matches),
/// its `timeout` (a success within a longer limit says nothing about a shorter one), the names
/// of its dependencies, and its dependencies' fingerprints, so that a change upstream changes
/// every fingerprint below it. Not in it: the process environment oprun inherits (`PATH`,
/// `CC` exported in the shell), the contents of files, `retries` (a success is a success
/// however many attempts it took), and what only orders or reports a run: priority, qos,
/// queue, `run-if`, `completion`, `description`, `interactive`.
///
/// Each part is hashed on its own as well, so that a run can say *what* changed.
public struct JobFingerprint: Hashable, Sendable {
  /// The hash of everything above: the one value compared.
  public var value: UInt64
  /// The parts, each hashed alone.
  public var parts: [FingerprintPart: UInt64]

  public init(value: UInt64, parts: [FingerprintPart: UInt64]) {
    self.value = value
    self.parts = parts
  }

  /// 16 lower-case hex digits, as journals write it.
  public var text: String { Self.text(of: value) }

  /// `value` as 16 lower-case hex digits.
  public static func text(of value: UInt64) -> String {
    let digits = String(value, radix: 16)
    return String(repeating: "0", count: 16 - digits.count) + digits
  }

  /// The value of 16 hex digits; nil for anything else.
  public static func value(of text: String) -> UInt64? {
    guard text.utf8.count == 16 else { return nil }
    return UInt64(text, radix: 16)
  }
}

/// What a fingerprint is made of, by the name journals and messages give it.
public enum FingerprintPart: String, Sendable, CaseIterable, Comparable {
  case command
  case env
  case cwd
  case timeout
  case dependencies

  public static func < (a: FingerprintPart, b: FingerprintPart) -> Bool {
    allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
  }
}

extension JobGraph {
  /// Every job's fingerprint, indexed by ``JobID``.
  public func fingerprints() -> [JobFingerprint] {
    var fingerprints = [JobFingerprint?](repeating: nil, count: jobs.count)
    let folder = manifestFolder
    for job in topologicalOrder() {
      let node = jobs[job]
      var parts: [FingerprintPart: UInt64] = [:]
      parts[.command] = FingerprintText.hash { text in
        for command in node.commands { text.append(command) }
      }
      parts[.env] = FingerprintText.hash { text in
        for entry in node.env.sorted(by: { $0.name < $1.name }) {
          text.append(entry.name)
          text.append(entry.value)
        }
      }
      parts[.cwd] = FingerprintText.hash { $0.append(Self.relativeWorkingDirectory(node.cwd, folder: folder)) }
      parts[.timeout] = FingerprintText.hash { $0.append(node.timeout.map { "\($0)" } ?? "none") }
      let dependencies = node.dependencies.sorted { jobs[$0].name < jobs[$1].name }
      parts[.dependencies] = FingerprintText.hash { text in
        for dependency in dependencies { text.append(jobs[dependency].name) }
      }
      let value = FingerprintText.hash { text in
        text.append("oprun fingerprint 1")
        for part in FingerprintPart.allCases { text.append(parts[part]!) }
        for dependency in dependencies { text.append(fingerprints[dependency]!.value) }
      }
      fingerprints[job] = JobFingerprint(value: value, parts: parts)
    }
    return fingerprints.map { $0! }
  }

  /// Jobs ordered so that each comes after all its dependencies.
  func topologicalOrder() -> [JobID] {
    var waiting = jobs.map(\.dependencies.count)
    var order = jobs.indices.filter { waiting[$0] == 0 }
    order.reserveCapacity(jobs.count)
    var next = 0
    while next < order.count {
      for dependent in jobs[order[next]].dependents {
        waiting[dependent] -= 1
        if waiting[dependent] == 0 { order.append(dependent) }
      }
      next += 1
    }
    return order
  }

  /// A job's working directory as the fingerprint sees it: relative to the manifest's
  /// folder when inside it ("." for the folder itself), else as written.
  static func relativeWorkingDirectory(_ cwd: String?, folder: String) -> String {
    guard let cwd else { return "." }
    if folder == "." { return cwd }
    if cwd == folder { return "." }
    let prefix = folder.hasSuffix("/") ? folder : folder + "/"
    return cwd.hasPrefix(prefix) ? String(cwd.dropFirst(prefix.count)) : cwd
  }
}

/// The bytes a fingerprint part is hashed from: each string prefixed by its length, so that
/// no two different lists of strings give the same bytes.
struct FingerprintText {
  private var bytes: [UInt8] = []

  static func hash(_ build: (inout FingerprintText) -> Void) -> UInt64 {
    var text = FingerprintText()
    build(&text)
    return XXHash64.hash(text.bytes)
  }

  mutating func append(_ string: String) {
    append(UInt64(string.utf8.count))
    bytes.append(contentsOf: string.utf8)
  }

  mutating func append(_ number: UInt64) {
    withUnsafeBytes(of: number.littleEndian) { bytes.append(contentsOf: $0) }
  }
}
