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
  public var parts: FingerprintParts

  public init(value: UInt64, parts: FingerprintParts) {
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
    // Digits only: UInt64(_:radix:) would also take a sign and 15 digits.
    guard text.utf8.count == 16,
      text.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0 | 0x20) })
    else { return nil }
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

/// Each part's hash, by part; a part a journal line does not give is nil. Written as a
/// dictionary literal, `[.command: hash]`, and with no storage of its own to allocate.
public struct FingerprintParts: Hashable, Sendable, ExpressibleByDictionaryLiteral {
  private var command, env, cwd, timeout, dependencies: UInt64?

  public init(dictionaryLiteral elements: (FingerprintPart, UInt64)...) {
    for (part, hash) in elements { self[part] = hash }
  }

  public subscript(part: FingerprintPart) -> UInt64? {
    get {
      switch part {
      case .command: command
      case .env: env
      case .cwd: cwd
      case .timeout: timeout
      case .dependencies: dependencies
      }
    }
    set {
      switch part {
      case .command: command = newValue
      case .env: env = newValue
      case .cwd: cwd = newValue
      case .timeout: timeout = newValue
      case .dependencies: dependencies = newValue
      }
    }
  }

  /// No part is known.
  public var isEmpty: Bool { FingerprintPart.allCases.allSatisfy { self[$0] == nil } }
}

extension JobGraph {
  /// Every job's fingerprint, indexed by ``JobID``.
  public func fingerprints() -> [JobFingerprint] {
    var fingerprints = [JobFingerprint?](repeating: nil, count: jobs.count)
    var text = FingerprintText()
    for job in topologicalOrder() {
      var parts = FingerprintParts()
      parts[.command] = text.hash { text in
        for command in jobs[job].commands { text.append(command) }
      }
      parts[.env] = text.hash { text in
        let env = jobs[job].env
        for entry in env.count > 1 ? env.sorted(by: { $0.name < $1.name }) : env {
          text.append(entry.name)
          text.append(entry.value)
        }
      }
      parts[.cwd] = text.hash { $0.append(jobs[job].writtenCwd ?? ".") }
      parts[.timeout] = text.hash { $0.append(jobs[job].timeout.map { "\($0)" } ?? "none") }
      var dependencies = jobs[job].dependencies
      if dependencies.count > 1 { dependencies.sort { jobs[$0].name < jobs[$1].name } }
      parts[.dependencies] = text.hash { text in
        for dependency in dependencies { text.append(jobs[dependency].name) }
      }
      let value = text.hash { text in
        text.append("oprun fingerprint 1")
        for part in FingerprintPart.allCases { text.append(parts[part]!) }
        for dependency in dependencies { text.append(fingerprints[dependency]!.value) }
      }
      fingerprints[job] = JobFingerprint(value: value, parts: parts)
    }
    return fingerprints.map { $0! }
  }
}

/// The bytes a fingerprint part is hashed from: each string prefixed by its length, so that
/// no two different lists of strings give the same bytes. One buffer serves every part.
struct FingerprintText {
  private var bytes: [UInt8] = []

  /// The hash of what `build` appends to an emptied buffer.
  mutating func hash(_ build: (inout FingerprintText) -> Void) -> UInt64 {
    bytes.removeAll(keepingCapacity: true)
    build(&self)
    return XXHash64.hash(bytes)
  }

  mutating func append(_ string: String) {
    append(UInt64(string.utf8.count))
    bytes.append(contentsOf: string.utf8)
  }

  mutating func append(_ number: UInt64) {
    withUnsafeBytes(of: number.littleEndian) { bytes.append(contentsOf: $0) }
  }
}
