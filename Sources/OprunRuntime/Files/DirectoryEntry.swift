import Glibc

/// An entry `readdir` returned, read where it lies. A record is only as long as its name
/// (`d_reclen`), so a copy of the whole `dirent` — its `d_name` is a 256-byte array — reads past
/// the end of the last record in the kernel's buffer.
extension UnsafeMutablePointer<dirent> {
  /// The entry's NUL-terminated name, in place.
  var namePointer: UnsafePointer<CChar> {
    UnsafeRawPointer(self).advanced(by: MemoryLayout<dirent>.offset(of: \dirent.d_name)!)
      .assumingMemoryBound(to: CChar.self)
  }

  /// The entry's name, its bytes decoded as UTF-8 (U+FFFD for those that are not).
  var name: String {
    String(decoding: UnsafeRawBufferPointer(start: namePointer, count: strlen(namePointer)), as: UTF8.self)
  }

  /// `d_type`: `DT_UNKNOWN` where the file system does not say.
  var kind: UInt8 {
    UnsafeRawPointer(self).load(fromByteOffset: MemoryLayout<dirent>.offset(of: \dirent.d_type)!, as: UInt8.self)
  }
}
