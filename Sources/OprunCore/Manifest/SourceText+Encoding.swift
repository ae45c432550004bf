import Glibc

extension SourceText {
  /// A diagnostic if the text is not valid UTF-8 or holds a NUL byte, which libyaml would
  /// otherwise misread (it guesses UTF-16 from a byte order mark) or report without a position.
  func encodingProblem() -> Diagnostic? {
    let nul = bytes.withUnsafeBytes { buffer -> Int? in
      guard let base = buffer.baseAddress, let found = memchr(base, 0, buffer.count) else { return nil }
      return base.distance(to: UnsafeRawPointer(found))
    }
    let invalid = UTF8Validation.firstInvalidByte(in: bytes)
    switch (nul, invalid) {
    case (let nul?, let invalid) where invalid == nil || nul < invalid!:
      return Diagnostic(at: location(ofByteOffset: nul), "the file contains a NUL byte; is it a binary file?")
    case (_, let invalid?):
      if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]) {
        return Diagnostic(at: nil, "cannot read '\(path)': it is UTF-16; save it as UTF-8")
      }
      let byte = "0x" + String(bytes[invalid], radix: 16, uppercase: true)
      return Diagnostic(at: location(ofByteOffset: invalid), "the file is not valid UTF-8 (byte \(byte))")
    default:
      return nil
    }
  }
}

/// UTF-8 validation (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF).
enum UTF8Validation {
  /// The offset of the first byte that does not belong to a valid UTF-8 sequence, or nil.
  static func firstInvalidByte(in bytes: [UInt8]) -> Int? {
    bytes.withUnsafeBufferPointer { buffer in
      var index = 0
      let count = buffer.count
      while index < count {
        index = skipASCII(buffer, from: index)
        guard index < count else { return nil }
        let length = sequenceLength(buffer, at: index)
        if length == 0 { return index }
        index += length
      }
      return nil
    }
  }

  /// Skips ASCII eight bytes at a time: most manifests are ASCII.
  private static func skipASCII(_ buffer: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
    var index = start
    let raw = UnsafeRawBufferPointer(buffer)
    while index + 8 <= buffer.count {
      let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
      if word & 0x8080_8080_8080_8080 != 0 { break }
      index += 8
    }
    while index < buffer.count, buffer[index] < 0x80 { index += 1 }
    return index
  }

  /// The length of the valid sequence starting with a non-ASCII byte at `index`, or 0.
  private static func sequenceLength(_ buffer: UnsafeBufferPointer<UInt8>, at index: Int) -> Int {
    let lead = buffer[index]
    let length: Int
    var low: UInt8 = 0x80
    var high: UInt8 = 0xBF
    switch lead {
    case 0xC2...0xDF: length = 2
    case 0xE0:
      length = 3
      low = 0xA0
    case 0xE1...0xEC, 0xEE...0xEF: length = 3
    case 0xED:
      length = 3
      high = 0x9F
    case 0xF0:
      length = 4
      low = 0x90
    case 0xF1...0xF3: length = 4
    case 0xF4:
      length = 4
      high = 0x8F
    default: return 0
    }
    guard index + length <= buffer.count else { return 0 }
    let second = buffer[index + 1]
    guard second >= low, second <= high else { return 0 }
    for offset in 2..<length where buffer[index + offset] & 0xC0 != 0x80 { return 0 }
    return length
  }
}
