/// The values of a manifest's `secrets` (SPEC §15), as one automaton that finds every one
/// of them in a single pass over a stream of bytes (Aho–Corasick, as a full transition table:
/// one lookup per byte, whatever the number of secrets).
///
/// A value is cut at its line ends and each piece is a pattern of its own, since output is
/// shown a line at a time; a piece shorter than ``minimumLength`` bytes is not masked (it
/// would mask far more than the secret). So no pattern holds `\n` or `\r`, and after a line
/// end the automaton is back at its start: masking never holds back the end of a line.
public struct SecretPatterns: Sendable {
  /// Values shorter than this are left alone.
  public static let minimumLength = 4
  /// What a secret is replaced with.
  public static let replacement: [UInt8] = Array("***".utf8)

  /// `transitions[state << 8 | byte]`: the state after reading `byte` in `state`.
  let transitions: [Int32]
  /// Per state: the length of the longest pattern that ends there, 0 for none.
  let matchLength: [Int32]
  /// Per state: how many bytes it has read of the patterns it may still complete.
  let depth: [Int32]
  /// The longest pattern's length: the most a stream holds back between two reads.
  public let longest: Int

  /// The patterns of `values`; nil when none is long enough to be masked.
  public init?(values: some Sequence<String>) {
    var pieces = Set<[UInt8]>()
    for value in values {
      for piece in value.utf8.split(whereSeparator: { $0 == 0x0A || $0 == 0x0D })
      where piece.count >= Self.minimumLength {
        pieces.insert(Array(piece))
      }
    }
    guard !pieces.isEmpty else { return nil }
    let patterns = pieces.sorted { $0.lexicographicallyPrecedes($1) }
    longest = patterns.map(\.count).max()!

    // The trie: each state's children by byte.
    var children: [[UInt8: Int32]] = [[:]]
    var depth: [Int32] = [0]
    var terminal: [Bool] = [false]
    for pattern in patterns {
      var state: Int32 = 0
      for byte in pattern {
        if let next = children[Int(state)][byte] {
          state = next
        } else {
          let next = Int32(children.count)
          children[Int(state)][byte] = next
          children.append([:])
          depth.append(depth[Int(state)] + 1)
          terminal.append(false)
          state = next
        }
      }
      terminal[Int(state)] = true
    }

    // Breadth first, so that a state's fallback is complete before the state is.
    let count = children.count
    var transitions = [Int32](repeating: 0, count: count << 8)
    var fallback = [Int32](repeating: 0, count: count)
    var matchLength = [Int32](repeating: 0, count: count)
    var queue: [Int32] = []
    for (byte, child) in children[0] {
      transitions[Int(byte)] = child
      queue.append(child)
    }
    var head = 0
    while head < queue.count {
      let state = Int(queue[head])
      head += 1
      let fail = Int(fallback[state])
      matchLength[state] = terminal[state] ? depth[state] : matchLength[fail]
      for byte in 0..<256 {
        transitions[state << 8 | byte] = transitions[fail << 8 | byte]
      }
      for (byte, child) in children[state] {
        fallback[Int(child)] = transitions[fail << 8 | Int(byte)]
        transitions[state << 8 | Int(byte)] = child
        queue.append(child)
      }
    }
    self.transitions = transitions
    self.matchLength = matchLength
    self.depth = depth
  }

  /// `text` with every secret in it replaced by `***`.
  public func masked(_ text: String) -> String {
    String(decoding: masked(Array(text.utf8)), as: UTF8.self)
  }

  /// `bytes`, whole, with every secret in them replaced by `***`.
  public func masked(_ bytes: [UInt8]) -> [UInt8] {
    var stream = SecretMaskingStream(self)
    var result: [UInt8] = []
    stream.mask(bytes[...]) { result.append(contentsOf: $0) }
    stream.finish { result.append(contentsOf: $0) }
    return result
  }
}
