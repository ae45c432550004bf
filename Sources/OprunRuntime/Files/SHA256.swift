import COprunSystem

/// SHA-256 of bytes fed in pieces, by `oprun_sha256` (with the CPU's SHA instructions when it
/// has them): a hash here without a library that would bring Foundation into the binary, whose
/// size and relocations cost every start of oprun about a millisecond.
struct SHA256 {
  private var state = oprun_sha256()

  init() {
    oprun_sha256_init(&state)
  }

  mutating func update(bufferPointer bytes: UnsafeRawBufferPointer) {
    guard let start = bytes.baseAddress, !bytes.isEmpty else { return }
    oprun_sha256_update(&state, start, bytes.count)
  }

  /// The 32 bytes of the digest of everything fed; the hash is spent.
  mutating func finalize() -> [UInt8] {
    [UInt8](unsafeUninitializedCapacity: 32) { digest, count in
      oprun_sha256_final(&state, digest.baseAddress!)
      count = 32
    }
  }
}
