#ifndef ASSETPACK_CZLIB_SHIM_H
#define ASSETPACK_CZLIB_SHIM_H
// The system zlib, the same library on every platform.
#include <zlib.h>

// deflateInit2/inflateInit2 are macros over the *_ functions; Swift cannot call macros.
static inline int assetpack_inflate_init_raw(z_streamp strm) {
    return inflateInit2(strm, -MAX_WBITS);
}
static inline int assetpack_inflate_init_gzip(z_streamp strm) {
    return inflateInit2(strm, 16 + MAX_WBITS);
}
static inline int assetpack_deflate_init_raw(z_streamp strm, int level, int memLevel) {
    return deflateInit2(strm, level, Z_DEFLATED, -MAX_WBITS, memLevel, Z_DEFAULT_STRATEGY);
}
static inline int assetpack_deflate_init_gzip(z_streamp strm, int level) {
    return deflateInit2(strm, level, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
}
#endif
