/// Decimal text for numbers, without Foundation's formatters.
public enum DecimalText {
  /// Appends the digits of `value`, with a leading `-` when negative.
  public static func append(_ value: Int, to bytes: inout [UInt8]) {
    if value < 0 { bytes.append(UInt8(ascii: "-")) }
    appendDigits(value.magnitude, minimumCount: 1, to: &bytes)
  }

  /// Appends `value` rounded to `fractionDigits` decimals (at most 9).
  ///
  /// With `trimmingZeros`, trailing zeros of the fraction are dropped, and the point with
  /// them (`1.5`, `2`), which keeps JSON short. Not finite values are written as `null`;
  /// magnitudes too large for fixed notation fall back to the standard library's text.
  public static func append(
    _ value: Double, fractionDigits: Int, trimmingZeros: Bool = false, to bytes: inout [UInt8]
  ) {
    guard value.isFinite else {
      bytes.append(contentsOf: "null".utf8)
      return
    }
    let digits = min(max(fractionDigits, 0), 9)
    let scale = powersOfTen[digits]
    let scaled = (value.magnitude * Double(scale)).rounded()
    guard scaled < 9.0e18 else {
      bytes.append(contentsOf: value.description.utf8)
      return
    }
    let units = UInt64(scaled)
    if value < 0, units != 0 { bytes.append(UInt8(ascii: "-")) }
    appendDigits(units / scale, minimumCount: 1, to: &bytes)
    appendFraction(units % scale, digits: digits, trimmingZeros: trimmingZeros, to: &bytes)
  }

  /// `value` rounded to `fractionDigits` decimals, as text.
  public static func string(_ value: Double, fractionDigits: Int, trimmingZeros: Bool = false) -> String {
    var bytes: [UInt8] = []
    append(value, fractionDigits: fractionDigits, trimmingZeros: trimmingZeros, to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }

  private static let powersOfTen: [UInt64] = (0...9).map { exponent in
    (0..<exponent).reduce(1) { product, _ in product * 10 }
  }

  private static func appendFraction(
    _ fraction: UInt64, digits: Int, trimmingZeros: Bool, to bytes: inout [UInt8]
  ) {
    var fraction = fraction
    var digits = digits
    if trimmingZeros {
      while digits > 0, fraction % 10 == 0 {
        fraction /= 10
        digits -= 1
      }
    }
    guard digits > 0 else { return }
    bytes.append(UInt8(ascii: "."))
    appendDigits(fraction, minimumCount: digits, to: &bytes)
  }

  /// Appends `value` in decimal, left-padded with zeros to `minimumCount` digits.
  private static func appendDigits<T: BinaryInteger>(_ value: T, minimumCount: Int, to bytes: inout [UInt8]) {
    var reversed: [UInt8] = []
    var rest = value
    repeat {
      reversed.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10))
      rest /= 10
    } while rest != 0
    while reversed.count < minimumCount { reversed.append(UInt8(ascii: "0")) }
    bytes.append(contentsOf: reversed.reversed())
  }
}
