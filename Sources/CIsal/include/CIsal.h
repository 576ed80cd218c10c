// Intel's ISA-L (libisal.so.2) for raw-deflate decoding and the zip CRC-32, loaded at run time when it is
// installed: about twice zlib's inflate speed and several times its CRC-32 on x86-64 and arm64. Compiled
// only where ISA-L's header is present (Debian: libisal-dev); without it, or without the library at run
// time, every call here says "unavailable" and AssetPackZip stays on zlib.
#ifndef ASSETPACK_CISAL_H
#define ASSETPACK_CISAL_H

#include <stddef.h>
#include <stdint.h>

/// 1 when ISA-L was loaded in this process (it is loaded at the first call), else 0. The environment
/// variable ASSETPACK_INFLATER=zlib keeps it unloaded.
int assetpack_isal_available(void);

/// One raw-deflate decoding stream of ISA-L (opaque).
typedef struct assetpack_isal_inflater assetpack_isal_inflater;

/// A new stream, ready for the first byte of a raw deflate stream; NULL when ISA-L is unavailable or out of memory.
assetpack_isal_inflater *assetpack_isal_inflater_create(void);

/// Starts a new stream on the same state.
void assetpack_isal_inflater_reset(assetpack_isal_inflater *inflater);

/// Frees the stream.
void assetpack_isal_inflater_destroy(assetpack_isal_inflater *inflater);

/// Decodes from `input` into `output`: sets `consumed` and `produced`, and `finished` to 1 once the final
/// block is decoded and handed out (`consumed` then ends exactly where the deflate data ends). Returns 0, or
/// ISA-L's negative status for damaged data.
int assetpack_isal_inflate(assetpack_isal_inflater *inflater, const uint8_t *input, size_t input_count,
                           uint8_t *output, size_t output_count, size_t *consumed, size_t *produced, int *finished);

/// The zip CRC-32 of `count` bytes continued from `crc` (0 to start), as zlib's `crc32`; only when
/// `assetpack_isal_available()` said 1.
uint32_t assetpack_isal_crc32(uint32_t crc, const uint8_t *bytes, size_t count);

#endif
