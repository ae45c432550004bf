import Glibc

/// Paths ordered by their bytes, as `sort` and `ls` in the C locale order them. Inlinable:
/// sorting a large tree calls it in loops across modules.
public enum ByteOrder {
  @inlinable public static func precedes(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
    order(a, b) < 0
  }

  /// Negative when `a` comes first, zero when they are the same bytes, positive when `b` does.
  @inlinable public static func order(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Int {
    let shorter = min(a.count, b.count)
    let common = shorter == 0 ? 0 : Int(memcmp(a.baseAddress!, b.baseAddress!, shorter))
    return common != 0 ? common : a.count - b.count
  }

  @inlinable public static func order(_ a: UnsafeBufferPointer<UInt8>, _ b: String) -> Int {
    if let order = b.utf8.withContiguousStorageIfAvailable({ order(a, $0) }) { return order }
    var b = b
    return b.withUTF8 { order(a, $0) }
  }

  @inlinable public static func order(_ a: String, _ b: String) -> Int {
    if let order = a.utf8.withContiguousStorageIfAvailable({ order($0, b) }) { return order }
    var a = a
    return a.withUTF8 { order($0, b) }
  }

  @inlinable public static func precedes(_ a: String, _ b: String) -> Bool { order(a, b) < 0 }

  /// The indices `0..<count` in the byte order of the keys `key(index, &bytes)` appends, equal
  /// keys in index order. The keys are laid out in one buffer and the indices sorted over it:
  /// sorting the items themselves would move each whole at every step, retaining and
  /// releasing their strings.
  public static func sortedIndices(_ count: Int, key: (Int, inout [UInt8]) -> Void) -> [Int] {
    var bytes: [UInt8] = []
    var ranges: [Range<Int>] = []
    ranges.reserveCapacity(count)
    for index in 0..<count {
      let start = bytes.count
      key(index, &bytes)
      ranges.append(start..<bytes.count)
    }
    var order = Array(0..<count)
    bytes.withUnsafeBufferPointer { bytes in
      order.sort { a, b in
        precedes(UnsafeBufferPointer(rebasing: bytes[ranges[a]]), UnsafeBufferPointer(rebasing: bytes[ranges[b]]))
      }
    }
    return order
  }
}
