import Glibc

/// An unnamed temporary file (``UnnamedFile``) that output too large to keep in memory is
/// appended to, and read back from a piece at a time; closed once nothing refers to it.
final class SpillFile {
  let descriptor: Int32
  /// Bytes written so far; they are the file's first `length` bytes.
  private(set) var length = 0

  private init(descriptor: Int32) {
    self.descriptor = descriptor
  }

  deinit { close(descriptor) }

  /// A new empty file in the first of `folders` that can hold one.
  static func create(inFirstOf folders: [String]) -> Result<SpillFile, SystemError> {
    UnnamedFile.open(inFirstOf: folders).map(SpillFile.init(descriptor:))
  }

  /// Appends `bytes`; how many were written, and the error that stopped the rest, if any.
  func append(_ bytes: UnsafeRawBufferPointer) -> (written: Int, error: SystemError?) {
    var written = 0
    while written < bytes.count {
      let count = pwrite(descriptor, bytes.baseAddress! + written, bytes.count - written, off_t(length))
      if count < 0, errno == EINTR { continue }
      guard count > 0 else { return (written, SystemError("write a temporary file", errno: count == 0 ? EIO : errno)) }
      written += count
      length += count
    }
    return (written, nil)
  }

  /// Up to `count` bytes from `offset` (fewer only at the end of the file, or after a read
  /// error).
  func read(_ count: Int, at offset: Int) -> [UInt8] {
    [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
      initialized = 0
      while initialized < count {
        let got = pread(descriptor, buffer.baseAddress! + initialized, count - initialized, off_t(offset + initialized))
        if got < 0, errno == EINTR { continue }
        guard got > 0 else { return }
        initialized += got
      }
    }
  }
}
