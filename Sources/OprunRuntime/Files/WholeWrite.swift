import Glibc

/// Writes every byte of `bytes` to the blocking descriptor `fd`, resuming after a signal or a
/// short write; 0, or the errno of the write that failed.
func writeWhole(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32 {
  guard let start = bytes.baseAddress else { return 0 }
  var offset = 0
  while offset < bytes.count {
    let written = write(fd, start + offset, bytes.count - offset)
    if written < 0, errno == EINTR { continue }
    if written < 0 { return errno }
    offset += written
  }
  return 0
}
