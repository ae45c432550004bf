#ifndef OPRUN_SHA256_H
#define OPRUN_SHA256_H
// SHA-256 (FIPS 180-4), with the CPU's SHA instructions when it has them.

#include <stddef.h>
#include <stdint.h>

/// A hash in progress: feed it bytes with oprun_sha256_update, then take the digest once.
struct oprun_sha256 {
  uint32_t state[8];
  uint64_t length;      // bytes fed so far
  uint8_t pending[64];  // the start of a block not yet compressed
  size_t pending_count;
};

void oprun_sha256_init(struct oprun_sha256 *hash);
void oprun_sha256_update(struct oprun_sha256 *hash, const void *bytes, size_t count);
/// Writes the 32-byte digest; the hash is spent.
void oprun_sha256_final(struct oprun_sha256 *hash, uint8_t digest[32]);

#endif
