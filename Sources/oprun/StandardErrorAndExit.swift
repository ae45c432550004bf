import Glibc

/// Writes all of `text` to file descriptor 2, without buffering.
func writeToStandardError(_ text: String) {
  var text = text
  text.withUTF8 { buffer in
    var offset = 0
    while offset < buffer.count {
      let written = write(2, buffer.baseAddress! + offset, buffer.count - offset)
      if written < 0 && errno == EINTR { continue }
      guard written > 0 else { return }
      offset += written
    }
  }
}

/// Ends oprun with `status` (standard output is unbuffered write(2) throughout, so nothing is lost).
func exitProcess(_ status: Int32) -> Never {
  Glibc.exit(status)
}
