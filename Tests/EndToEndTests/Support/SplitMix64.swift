/// A seeded pseudo-random generator (SplitMix64, Steele, Lea and Flood 2014): the same seed
/// gives the same sequence on every machine and every Swift version, which the standard
/// library's generator does not promise, so that a failing torture seed can be run again.
struct SplitMix64: RandomNumberGenerator {
  private var state: UInt64

  init(seed: UInt64) { state = seed }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// A whole number in `range`. Computed here rather than by `Int.random(in:using:)`, whose
  /// algorithm the standard library may change; the modulo's bias is below 2^-40 for the
  /// small ranges used here.
  mutating func int(in range: ClosedRange<Int>) -> Int {
    range.lowerBound + Int(next() % UInt64(range.upperBound - range.lowerBound + 1))
  }

  /// True with probability `p`.
  mutating func chance(_ p: Double) -> Bool { Double(next() >> 11) * 0x1p-53 < p }

  /// One of `choices`, each as likely as its weight.
  mutating func pick<T>(_ choices: [(T, Int)]) -> T {
    var roll = int(in: 0...(choices.reduce(0) { $0 + $1.1 } - 1))
    for (choice, weight) in choices {
      if roll < weight { return choice }
      roll -= weight
    }
    return choices[choices.count - 1].0
  }
}
