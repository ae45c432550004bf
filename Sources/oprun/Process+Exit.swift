import Glibc

/// Writes one line to standard error.
func printToStandardError(_ text: String) {
  var line = text
  line.append("\n")
  _ = line.withUTF8 { write(2, $0.baseAddress, $0.count) }
}

/// Ends oprun with `status` (standard output is unbuffered write(2) throughout, so nothing is lost).
func exitProcess(_ status: Int32) -> Never {
  Glibc.exit(status)
}
