/// XXH64, the 64-bit hash of the xxHash family (its published specification, seed 0 unless
/// given): what oprun hashes fingerprints with.
///
/// Not a cryptographic hash, and it need not be: a fingerprint is only ever compared with
/// the previous fingerprint of the same job, written by the same user, so a wrong "unchanged"
/// needs two different texts of one job to collide by chance (2⁻⁶⁴ per change). Anyone able to
/// craft a collision can edit the manifest, which runs what it says anyway. On this machine it
/// is 11 times faster than swift-crypto's SHA-256 per byte (with SHA instructions) and 13 times
/// on fingerprint-sized input, and it needs no library: swift-crypto brings Foundation into the
/// binary (3.7 times its size, 0.6 ms more start-up). Numbers in docs/PERFORMANCE.md.
public enum XXHash64 {
  static let prime1: UInt64 = 0x9E37_79B1_85EB_CA87
  static let prime2: UInt64 = 0xC2B2_AE3D_27D4_EB4F
  static let prime3: UInt64 = 0x1656_67B1_9E37_79F9
  static let prime4: UInt64 = 0x85EB_CA77_C2B2_AE63
  static let prime5: UInt64 = 0x27D4_EB2F_1656_67C5

  /// The hash of `bytes`.
  public static func hash(_ bytes: UnsafeRawBufferPointer, seed: UInt64 = 0) -> UInt64 {
    let count = bytes.count
    var offset = 0
    var hash: UInt64
    if count >= 32 {
      var lanes = (seed &+ prime1 &+ prime2, seed &+ prime2, seed, seed &- prime1)
      while offset + 32 <= count {
        lanes.0 = round(lanes.0, word(bytes, offset))
        lanes.1 = round(lanes.1, word(bytes, offset + 8))
        lanes.2 = round(lanes.2, word(bytes, offset + 16))
        lanes.3 = round(lanes.3, word(bytes, offset + 24))
        offset += 32
      }
      hash = rotate(lanes.0, 1) &+ rotate(lanes.1, 7) &+ rotate(lanes.2, 12) &+ rotate(lanes.3, 18)
      hash = merge(hash, lanes.0)
      hash = merge(hash, lanes.1)
      hash = merge(hash, lanes.2)
      hash = merge(hash, lanes.3)
    } else {
      hash = seed &+ prime5
    }
    hash &+= UInt64(count)
    while offset + 8 <= count {
      hash ^= round(0, word(bytes, offset))
      hash = rotate(hash, 27) &* prime1 &+ prime4
      offset += 8
    }
    if offset + 4 <= count {
      hash ^= UInt64(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))) &* prime1
      hash = rotate(hash, 23) &* prime2 &+ prime3
      offset += 4
    }
    while offset < count {
      hash ^= UInt64(bytes[offset]) &* prime5
      hash = rotate(hash, 11) &* prime1
      offset += 1
    }
    hash ^= hash >> 33
    hash &*= prime2
    hash ^= hash >> 29
    hash &*= prime3
    hash ^= hash >> 32
    return hash
  }

  /// The hash of `bytes`.
  public static func hash(_ bytes: [UInt8], seed: UInt64 = 0) -> UInt64 {
    bytes.withUnsafeBytes { hash($0, seed: seed) }
  }

  /// The hash of `text`'s UTF-8.
  public static func hash(_ text: String, seed: UInt64 = 0) -> UInt64 {
    var text = text
    return text.withUTF8 { hash(UnsafeRawBufferPointer($0), seed: seed) }
  }

  @inline(__always)
  private static func word(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt64 {
    UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
  }

  @inline(__always)
  private static func rotate(_ value: UInt64, _ count: UInt64) -> UInt64 {
    (value << count) | (value >> (64 - count))
  }

  @inline(__always)
  private static func round(_ accumulator: UInt64, _ lane: UInt64) -> UInt64 {
    rotate(accumulator &+ lane &* prime2, 31) &* prime1
  }

  @inline(__always)
  private static func merge(_ accumulator: UInt64, _ lane: UInt64) -> UInt64 {
    (accumulator ^ round(0, lane)) &* prime1 &+ prime4
  }
}
