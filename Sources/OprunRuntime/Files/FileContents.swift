import Glibc

/// Reading a whole file into memory, bounded: the one loader of the manifest and the journals.
enum FileContents {
  /// Why a file was not read.
  enum Failure: Error, Equatable {
    /// `open`, `fstat` or `read` failed with this errno.
    case system(Int32)
    case isDirectory
    /// Not a regular file (a FIFO, a device, a socket), where one was required.
    case notRegularFile
    /// Longer than the limit it was read with.
    case tooLarge

    /// What went wrong, for a message.
    var message: String {
      switch self {
      case .system(let error): errorMessage(error)
      case .isDirectory: "a directory"
      case .notRegularFile: "not a regular file"
      case .tooLarge: "too large"
      }
    }
  }

  /// Every byte of the file at `path`, up to `limit` bytes. With `regularOnly` (a file of
  /// `.oprun/`), anything but a regular file is refused before a byte is read, a link to one
  /// included: a FIFO planted where a file is expected cannot make the caller wait forever,
  /// nor a link make it read what another file holds.
  static func read(path: String, limit: Int, regularOnly: Bool = false) -> Result<[UInt8], Failure> {
    guard let descriptor = openForReading(path, regularOnly: regularOnly) else {
      return .failure(openFailure(errno, regularOnly: regularOnly))
    }
    defer { close(descriptor) }
    var status = stat()
    guard fstat(descriptor, &status) == 0 else { return .failure(.system(errno)) }
    if status.st_mode & S_IFMT == S_IFDIR { return .failure(.isDirectory) }
    if regularOnly, status.st_mode & S_IFMT != S_IFREG { return .failure(.notRegularFile) }
    if Int(status.st_size) > limit { return .failure(.tooLarge) }
    return readAll(descriptor, limit: limit, sizeHint: Int(status.st_size))
  }

  /// Every byte of the open regular file `descriptor`, from where it stands, up to `limit`
  /// bytes (a file opened by the caller, who checked it is the one it means).
  static func readRegular(descriptor: Int32, limit: Int) -> Result<[UInt8], Failure> {
    var status = stat()
    guard fstat(descriptor, &status) == 0 else { return .failure(.system(errno)) }
    if status.st_mode & S_IFMT != S_IFREG { return .failure(.notRegularFile) }
    if Int(status.st_size) > limit { return .failure(.tooLarge) }
    return readAll(descriptor, limit: limit, sizeHint: Int(status.st_size))
  }

  /// At most the first `count` bytes of the regular file at `path` (fewer when it is shorter),
  /// not reached through a link.
  static func readPrefix(path: String, count: Int) -> Result<[UInt8], Failure> {
    readRegular(path: path, count: count, fromEnd: false)
  }

  /// At most the last `count` bytes of the regular file at `path`, not reached through a link.
  static func readSuffix(path: String, count: Int) -> Result<[UInt8], Failure> {
    readRegular(path: path, count: count, fromEnd: true)
  }

  /// At most `count` bytes of the regular file at `path`, from its start or up to its end.
  private static func readRegular(path: String, count: Int, fromEnd: Bool) -> Result<[UInt8], Failure> {
    guard let descriptor = openForReading(path, regularOnly: true) else {
      return .failure(openFailure(errno, regularOnly: true))
    }
    defer { close(descriptor) }
    var status = stat()
    guard fstat(descriptor, &status) == 0 else { return .failure(.system(errno)) }
    if status.st_mode & S_IFMT != S_IFREG { return .failure(.notRegularFile) }
    if fromEnd, lseek(descriptor, max(0, status.st_size - off_t(count)), SEEK_SET) < 0 {
      return .failure(.system(errno))
    }
    return readChunk(descriptor, capacity: count)
  }

  /// Up to `capacity` bytes from `descriptor`: fewer only at end of file.
  private static func readChunk(_ descriptor: Int32, capacity: Int) -> Result<[UInt8], Failure> {
    var failure: Int32 = 0
    let bytes = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, filled in
      filled = 0
      while filled < capacity {
        let received = Glibc.read(descriptor, buffer.baseAddress! + filled, capacity - filled)
        if received < 0, errno == EINTR { continue }
        if received < 0 { failure = errno }
        guard received > 0 else { return }
        filled += received
      }
    }
    return failure == 0 ? .success(bytes) : .failure(.system(failure))
  }

  /// The file open for reading; nil with `errno` set. `regularOnly` opens without blocking,
  /// which a FIFO with no writer would otherwise do, and refuses a link (`ELOOP`).
  private static func openForReading(_ path: String, regularOnly: Bool) -> Int32? {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC | (regularOnly ? O_NONBLOCK | O_NOFOLLOW : 0))
    return descriptor >= 0 ? descriptor : nil
  }

  /// Why opening failed with `error`: a link where a regular file was required is no regular file.
  private static func openFailure(_ error: Int32, regularOnly: Bool) -> Failure {
    regularOnly && error == ELOOP ? .notRegularFile : .system(error)
  }

  /// Reads until end of file: a pipe or a file that grows is read to its end, not to its `stat` size.
  private static func readAll(_ descriptor: Int32, limit: Int, sizeHint: Int) -> Result<[UInt8], Failure> {
    var chunks: [[UInt8]] = []
    var capacity = max(sizeHint + 1, 4096)
    var total = 0
    while true {
      let chunk: [UInt8]
      switch readChunk(descriptor, capacity: capacity) {
      case .success(let bytes): chunk = bytes
      case .failure(let failure): return .failure(failure)
      }
      total += chunk.count
      if total > limit { return .failure(.tooLarge) }
      let isLast = chunk.count < capacity
      chunks.append(chunk)
      if isLast { break }
      capacity *= 2
    }
    return .success(chunks.count == 1 ? chunks[0] : Array(chunks.joined()))
  }
}
