// SHA-256 as FIPS 180-4 gives it. Blocks are compressed with the SHA extensions
// (SHA-NI) when the CPU has them, which hashes about eight times as fast as the
// portable rounds, else with the portable rounds.
#include "oprun_sha256.h"

#include <string.h>

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#endif

static const uint32_t round_constants[64] = {
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static inline uint32_t rotate_right(uint32_t value, int count) {
  return (value >> count) | (value << (32 - count));
}

static void compress_portable(uint32_t state[8], const uint8_t *blocks, size_t count) {
  for (; count > 0; count--, blocks += 64) {
    uint32_t w[64];
    for (int i = 0; i < 16; i++) {
      w[i] = (uint32_t)blocks[4 * i] << 24 | (uint32_t)blocks[4 * i + 1] << 16 | (uint32_t)blocks[4 * i + 2] << 8
        | (uint32_t)blocks[4 * i + 3];
    }
    for (int i = 16; i < 64; i++) {
      uint32_t s0 = rotate_right(w[i - 15], 7) ^ rotate_right(w[i - 15], 18) ^ (w[i - 15] >> 3);
      uint32_t s1 = rotate_right(w[i - 2], 17) ^ rotate_right(w[i - 2], 19) ^ (w[i - 2] >> 10);
      w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
    uint32_t e = state[4], f = state[5], g = state[6], h = state[7];
    for (int i = 0; i < 64; i++) {
      uint32_t s1 = rotate_right(e, 6) ^ rotate_right(e, 11) ^ rotate_right(e, 25);
      uint32_t choice = (e & f) ^ (~e & g);
      uint32_t t1 = h + s1 + choice + round_constants[i] + w[i];
      uint32_t s0 = rotate_right(a, 2) ^ rotate_right(a, 13) ^ rotate_right(a, 22);
      uint32_t majority = (a & b) ^ (a & c) ^ (b & c);
      uint32_t t2 = s0 + majority;
      h = g;
      g = f;
      f = e;
      e = d + t1;
      d = c;
      c = b;
      b = a;
      a = t1 + t2;
    }
    state[0] += a;
    state[1] += b;
    state[2] += c;
    state[3] += d;
    state[4] += e;
    state[5] += f;
    state[6] += g;
    state[7] += h;
  }
}

#if defined(__x86_64__)
// Four rounds on the message words `message` (already in the CPU's order): `abef` and `cdgh`
// hold the working variables as the SHA instructions want them.
#define FOUR_ROUNDS(message, index)                                                           \
  do {                                                                                        \
    __m128i words = _mm_add_epi32(message, _mm_loadu_si128((const __m128i *)&round_constants[index])); \
    cdgh = _mm_sha256rnds2_epu32(cdgh, abef, words);                                          \
    abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(words, 0x0e));                 \
  } while (0)

__attribute__((target("sha,sse4.1,ssse3")))
static void compress_with_sha_instructions(uint32_t state[8], const uint8_t *blocks, size_t count) {
  const __m128i big_endian = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
  __m128i dcba = _mm_loadu_si128((const __m128i *)&state[0]);
  __m128i hgfe = _mm_loadu_si128((const __m128i *)&state[4]);
  __m128i cdab = _mm_shuffle_epi32(dcba, 0xb1);
  __m128i efgh = _mm_shuffle_epi32(hgfe, 0x1b);
  __m128i abef = _mm_alignr_epi8(cdab, efgh, 8);
  __m128i cdgh = _mm_blend_epi16(efgh, cdab, 0xf0);
  for (; count > 0; count--, blocks += 64) {
    __m128i saved_abef = abef, saved_cdgh = cdgh;
    // w[0] holds the four words a group of rounds uses; w[1..3] the three groups before.
    __m128i w0 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(blocks + 0)), big_endian);
    __m128i w1 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(blocks + 16)), big_endian);
    __m128i w2 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(blocks + 32)), big_endian);
    __m128i w3 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(blocks + 48)), big_endian);
    FOUR_ROUNDS(w0, 0);
    FOUR_ROUNDS(w1, 4);
    FOUR_ROUNDS(w2, 8);
    FOUR_ROUNDS(w3, 12);
    for (int index = 16; index < 64; index += 4) {
      // W[t..t+3] from W[t-16..t-1]: σ0 and W[t-16] by msg1, W[t-7..t-4] added, σ1 by msg2.
      __m128i next = _mm_sha256msg1_epu32(w0, w1);
      next = _mm_add_epi32(next, _mm_alignr_epi8(w3, w2, 4));
      next = _mm_sha256msg2_epu32(next, w3);
      FOUR_ROUNDS(next, index);
      w0 = w1;
      w1 = w2;
      w2 = w3;
      w3 = next;
    }
    abef = _mm_add_epi32(abef, saved_abef);
    cdgh = _mm_add_epi32(cdgh, saved_cdgh);
  }
  __m128i feba = _mm_shuffle_epi32(abef, 0x1b);
  __m128i dchg = _mm_shuffle_epi32(cdgh, 0xb1);
  _mm_storeu_si128((__m128i *)&state[0], _mm_blend_epi16(feba, dchg, 0xf0));
  _mm_storeu_si128((__m128i *)&state[4], _mm_alignr_epi8(dchg, feba, 8));
}
#undef FOUR_ROUNDS

static int has_sha_instructions(void) {
  static int known = -1;
  int answer = __atomic_load_n(&known, __ATOMIC_RELAXED);
  if (answer >= 0) return answer;
  unsigned eax, ebx, ecx, edx;
  answer = 0;
  if (__get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & bit_SSE4_1) && (ecx & bit_SSSE3)
      && __get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) {
    answer = (ebx & bit_SHA) != 0;
  }
  __atomic_store_n(&known, answer, __ATOMIC_RELAXED);
  return answer;
}
#endif

static void compress(uint32_t state[8], const uint8_t *blocks, size_t count) {
#if defined(__x86_64__)
  if (has_sha_instructions()) {
    compress_with_sha_instructions(state, blocks, count);
    return;
  }
#endif
  compress_portable(state, blocks, count);
}

void oprun_sha256_init(struct oprun_sha256 *hash) {
  static const uint32_t initial[8] = {
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
  };
  memcpy(hash->state, initial, sizeof initial);
  hash->length = 0;
  hash->pending_count = 0;
}

void oprun_sha256_update(struct oprun_sha256 *hash, const void *bytes, size_t count) {
  if (count == 0) return;
  const uint8_t *next = bytes;
  hash->length += count;
  if (hash->pending_count > 0) {
    size_t taken = 64 - hash->pending_count < count ? 64 - hash->pending_count : count;
    memcpy(hash->pending + hash->pending_count, next, taken);
    hash->pending_count += taken;
    next += taken;
    count -= taken;
    if (hash->pending_count < 64) return;
    compress(hash->state, hash->pending, 1);
    hash->pending_count = 0;
  }
  if (count >= 64) {
    compress(hash->state, next, count / 64);
    next += count / 64 * 64;
    count %= 64;
  }
  memcpy(hash->pending, next, count);
  hash->pending_count = count;
}

void oprun_sha256_final(struct oprun_sha256 *hash, uint8_t digest[32]) {
  uint64_t bits = hash->length * 8;
  uint8_t padding[72] = {0x80};
  size_t padding_count = (hash->pending_count < 56 ? 56 : 120) - hash->pending_count;
  for (int i = 0; i < 8; i++) padding[padding_count + i] = (uint8_t)(bits >> (56 - 8 * i));
  oprun_sha256_update(hash, padding, padding_count + 8);
  for (int i = 0; i < 8; i++) {
    digest[4 * i] = (uint8_t)(hash->state[i] >> 24);
    digest[4 * i + 1] = (uint8_t)(hash->state[i] >> 16);
    digest[4 * i + 2] = (uint8_t)(hash->state[i] >> 8);
    digest[4 * i + 3] = (uint8_t)hash->state[i];
  }
}
