// libdeflate's whole-buffer compressor and decompressor (libdeflate.so.0), loaded at run time where it is
// installed: about twice zlib's deflate speed at the same level, for output of the same size, and the fastest
// decoder of a deflate piece held whole in memory. Only six functions of its stable C ABI are used, declared
// here, so no header is needed to build; without the library at run time every call here says "unavailable"
// and AssetPackZip compresses with zlib and decodes with ISA-L or zlib.
#ifndef ASSETPACK_CLIBDEFLATE_H
#define ASSETPACK_CLIBDEFLATE_H

#include <stddef.h>
#include <stdint.h>

/// 1 when libdeflate was loaded in this process (it is loaded at the first call), else 0. The environment
/// variable ASSETPACK_DEFLATER=zlib keeps it unloaded.
int assetpack_libdeflate_available(void);

/// One libdeflate compressor (opaque), for one thread at a time.
typedef struct assetpack_libdeflate_compressor assetpack_libdeflate_compressor;

/// A compressor at `level` (1–12; 1–9 match zlib's levels in intent); NULL when libdeflate is unavailable,
/// the level is refused or memory is short.
assetpack_libdeflate_compressor *assetpack_libdeflate_compressor_create(int level);

/// Frees the compressor.
void assetpack_libdeflate_compressor_destroy(assetpack_libdeflate_compressor *compressor);

/// Compresses `input` into `output` as one complete raw deflate stream (its last block final); returns the
/// bytes written, or 0 when they did not fit in `output_count`.
size_t assetpack_libdeflate_compress(assetpack_libdeflate_compressor *compressor, const uint8_t *input,
                                     size_t input_count, uint8_t *output, size_t output_count);

/// 1 when libdeflate's decompressor was loaded in this process, else 0. The environment variable
/// ASSETPACK_INFLATER set to anything but "libdeflate" (zlib, isal) keeps it unused.
int assetpack_libdeflate_decompresses(void);

/// One libdeflate decompressor (opaque), for one thread at a time.
typedef struct assetpack_libdeflate_decompressor assetpack_libdeflate_decompressor;

/// A decompressor; NULL when libdeflate's decompressor is unavailable or memory is short.
assetpack_libdeflate_decompressor *assetpack_libdeflate_decompressor_create(void);

/// Frees the decompressor.
void assetpack_libdeflate_decompressor_destroy(assetpack_libdeflate_decompressor *decompressor);

/// Decodes the raw deflate stream at `input`, which must end with its final block within `input_count` bytes, into
/// `output`: sets `consumed` (the stream's length, to the byte boundary after its final block) and `produced`.
/// Returns 0, or libdeflate's result for data that is damaged (1), or makes more than `output_count` bytes (3).
int assetpack_libdeflate_decompress(assetpack_libdeflate_decompressor *decompressor, const uint8_t *input,
                                    size_t input_count, uint8_t *output, size_t output_count, size_t *consumed,
                                    size_t *produced);

#endif
