// The SHA-256 block function in the CPU's own instructions (x86 SHA extensions), for the portable Swift
// SHA256 of AssetPack to use when the CPU has them. The only C of the package besides the zlib shim and
// the Android asset table.
#ifndef ASSETPACK_CSHA256_H
#define ASSETPACK_CSHA256_H

#include <stddef.h>
#include <stdint.h>

/// 1 when this CPU can run `assetpack_sha256_compress_hw` (x86-64 with SHA, SSSE3 and SSE4.1), else 0.
/// Asks the CPU (cpuid) at every call; callers keep the answer.
int assetpack_sha256_hw_available(void);

/// Compresses `count` whole 64-byte blocks at `blocks` into `state` (FIPS 180-4, 6.2.2; the eight working
/// words H0…H7 in order). Only when `assetpack_sha256_hw_available()` said 1; a no-op on other CPUs.
void assetpack_sha256_compress_hw(uint32_t state[8], const uint8_t *blocks, size_t count);

/// The 64 round constants K of SHA-256 (FIPS 180-4, 4.2.2), shared with the portable block function.
const uint32_t *assetpack_sha256_round_constants(void);

#endif
