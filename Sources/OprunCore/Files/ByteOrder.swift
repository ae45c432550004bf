import Glibc

/// Paths ordered by their bytes, as `sort` and `ls` in the C locale order them. Inlinable:
/// sorting a large tree calls it in loops across modules.
public enum ByteOrder {
  @inlinable public static func precedes(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
    let shorter = min(a.count, b.count)
    let common = shorter == 0 ? 0 : memcmp(a.baseAddress!, b.baseAddress!, shorter)
    return common != 0 ? common < 0 : a.count < b.count
  }

  @inlinable public static func precedes(_ a: String, _ b: String) -> Bool {
    var a = a
    var b = b
    return a.withUTF8 { a in b.withUTF8 { b in precedes(a, b) } }
  }
}
