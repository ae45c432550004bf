import COprunSystem
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

/// Copies `count` bytes from the start of `source` to the end of what was written to
/// `target`; 0, or the errno of what failed. `copy_file_range` first, then `read` and `write`
/// where the kernel cannot copy between the two (another file system on an old kernel).
func copyWhole(from source: Int32, count: Int, to target: Int32) -> Int32 {
  // The blocks at once (where the file system can): a 100 MB copy on ext4 took a fifth
  // longer allocating them page by page as it wrote.
  _ = oprun_reserve_space(target, UInt(max(count, 0)))
  var sourceOffset: Int64 = 0
  while sourceOffset < count {
    let copied = oprun_copy_file_range(source, &sourceOffset, target, UInt(count - Int(sourceOffset)))
    if copied > 0 { continue }
    if copied == 0 { return EIO }
    if errno == EINTR { continue }
    guard errno == EXDEV || errno == ENOSYS || errno == EOPNOTSUPP || errno == EINVAL else { return errno }
    break
  }
  guard sourceOffset < count else { return 0 }
  let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
  defer { buffer.deallocate() }
  while sourceOffset < count {
    let read = pread(source, buffer.baseAddress, min(buffer.count, count - Int(sourceOffset)), Int(sourceOffset))
    if read < 0, errno == EINTR { continue }
    if read < 0 { return errno }
    if read == 0 { return EIO }
    let error = writeWhole(target, UnsafeRawBufferPointer(rebasing: buffer[..<read]))
    if error != 0 { return error }
    sourceOffset += Int64(read)
  }
  return 0
}
