// libdeflate's compressor and decompressor, resolved with dlopen so that assetpack builds without it and runs where
// it is absent (it then reports "unavailable" and the caller keeps zlib, or ISA-L).
#include "CLibdeflate.h"

#if __has_include(<dlfcn.h>) && __has_include(<pthread.h>)
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static struct {
    void *(*alloc_compressor)(int);
    size_t (*deflate_compress)(void *, const void *, size_t, void *, size_t);
    void (*free_compressor)(void *);
    void *(*alloc_decompressor)(void);
    int (*deflate_decompress_ex)(void *, const void *, size_t, void *, size_t, size_t *, size_t *);
    void (*free_decompressor)(void *);
    int loaded;
    int decompresses;
} libdeflate;

static pthread_once_t libdeflate_once = PTHREAD_ONCE_INIT;

#if defined(__APPLE__)
static const char *const library_name = "libdeflate.0.dylib";
#else
static const char *const library_name = "libdeflate.so.0";
#endif

static void libdeflate_load(void) {
    void *library = dlopen(library_name, RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) return;
    const char *inflater = getenv("ASSETPACK_INFLATER");
    if (inflater == NULL || strcmp(inflater, "libdeflate") == 0) {
        libdeflate.alloc_decompressor = (void *(*)(void))dlsym(library, "libdeflate_alloc_decompressor");
        libdeflate.deflate_decompress_ex = (int (*)(void *, const void *, size_t, void *, size_t, size_t *, size_t *))dlsym(
            library, "libdeflate_deflate_decompress_ex");
        libdeflate.free_decompressor = (void (*)(void *))dlsym(library, "libdeflate_free_decompressor");
        libdeflate.decompresses =
            libdeflate.alloc_decompressor && libdeflate.deflate_decompress_ex && libdeflate.free_decompressor;
    }
    const char *choice = getenv("ASSETPACK_DEFLATER");
    if (choice == NULL || strcmp(choice, "zlib") != 0) {
        libdeflate.alloc_compressor = (void *(*)(int))dlsym(library, "libdeflate_alloc_compressor");
        libdeflate.deflate_compress =
            (size_t (*)(void *, const void *, size_t, void *, size_t))dlsym(library, "libdeflate_deflate_compress");
        libdeflate.free_compressor = (void (*)(void *))dlsym(library, "libdeflate_free_compressor");
        libdeflate.loaded = libdeflate.alloc_compressor && libdeflate.deflate_compress && libdeflate.free_compressor;
    }
    if (!libdeflate.loaded && !libdeflate.decompresses) dlclose(library);
}

int assetpack_libdeflate_available(void) {
    pthread_once(&libdeflate_once, libdeflate_load);
    return libdeflate.loaded;
}

assetpack_libdeflate_compressor *assetpack_libdeflate_compressor_create(int level) {
    if (!assetpack_libdeflate_available()) return NULL;
    return (assetpack_libdeflate_compressor *)libdeflate.alloc_compressor(level);
}

void assetpack_libdeflate_compressor_destroy(assetpack_libdeflate_compressor *compressor) {
    if (compressor != NULL) libdeflate.free_compressor(compressor);
}

size_t assetpack_libdeflate_compress(assetpack_libdeflate_compressor *compressor, const uint8_t *input,
                                     size_t input_count, uint8_t *output, size_t output_count) {
    return libdeflate.deflate_compress(compressor, input, input_count, output, output_count);
}

int assetpack_libdeflate_decompresses(void) {
    pthread_once(&libdeflate_once, libdeflate_load);
    return libdeflate.decompresses;
}

assetpack_libdeflate_decompressor *assetpack_libdeflate_decompressor_create(void) {
    if (!assetpack_libdeflate_decompresses()) return NULL;
    return (assetpack_libdeflate_decompressor *)libdeflate.alloc_decompressor();
}

void assetpack_libdeflate_decompressor_destroy(assetpack_libdeflate_decompressor *decompressor) {
    if (decompressor != NULL) libdeflate.free_decompressor(decompressor);
}

int assetpack_libdeflate_decompress(assetpack_libdeflate_decompressor *decompressor, const uint8_t *input,
                                    size_t input_count, uint8_t *output, size_t output_count, size_t *consumed,
                                    size_t *produced) {
    *consumed = 0;
    *produced = 0;
    return libdeflate.deflate_decompress_ex(decompressor, input, input_count, output, output_count, consumed, produced);
}

#else

int assetpack_libdeflate_available(void) { return 0; }
assetpack_libdeflate_compressor *assetpack_libdeflate_compressor_create(int level) {
    (void)level;
    return NULL;
}
void assetpack_libdeflate_compressor_destroy(assetpack_libdeflate_compressor *compressor) { (void)compressor; }
size_t assetpack_libdeflate_compress(assetpack_libdeflate_compressor *compressor, const uint8_t *input,
                                     size_t input_count, uint8_t *output, size_t output_count) {
    (void)compressor; (void)input; (void)input_count; (void)output; (void)output_count;
    return 0;
}
int assetpack_libdeflate_decompresses(void) { return 0; }
assetpack_libdeflate_decompressor *assetpack_libdeflate_decompressor_create(void) { return NULL; }
void assetpack_libdeflate_decompressor_destroy(assetpack_libdeflate_decompressor *decompressor) { (void)decompressor; }
int assetpack_libdeflate_decompress(assetpack_libdeflate_decompressor *decompressor, const uint8_t *input,
                                    size_t input_count, uint8_t *output, size_t output_count, size_t *consumed,
                                    size_t *produced) {
    (void)decompressor; (void)input; (void)input_count; (void)output; (void)output_count;
    *consumed = 0;
    *produced = 0;
    return 1;
}

#endif
