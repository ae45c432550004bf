/// A NULL-terminated array of C strings (argv, envp) in one allocation, freed with it.
final class CStringArray {
  private let storage: UnsafeMutableRawPointer
  let pointers: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>

  init(_ strings: [String]) {
    let byteCount = strings.reduce(0) { $0 + $1.utf8.count + 1 }
    storage = .allocate(byteCount: max(byteCount, 1), alignment: 1)
    pointers = .allocate(capacity: strings.count + 1)
    var cursor = storage.assumingMemoryBound(to: CChar.self)
    for (index, string) in strings.enumerated() {
      pointers[index] = cursor
      var string = string
      let count = string.withUTF8 { bytes in
        if let source = bytes.baseAddress {
          UnsafeMutableRawPointer(cursor).copyMemory(from: source, byteCount: bytes.count)
        }
        return bytes.count
      }
      cursor += count
      cursor.pointee = 0
      cursor += 1
    }
    pointers[strings.count] = nil
  }

  deinit {
    storage.deallocate()
    pointers.deallocate()
  }
}
