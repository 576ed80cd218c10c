// libdeflate's compressor, resolved with dlopen so that assetpack builds without it and runs where it is
// absent (it then reports "unavailable" and the caller keeps zlib).
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
    int loaded;
} libdeflate;

static pthread_once_t libdeflate_once = PTHREAD_ONCE_INIT;

#if defined(__APPLE__)
static const char *const library_name = "libdeflate.0.dylib";
#else
static const char *const library_name = "libdeflate.so.0";
#endif

static void libdeflate_load(void) {
    const char *choice = getenv("ASSETPACK_DEFLATER");
    if (choice != NULL && strcmp(choice, "zlib") == 0) return;
    void *library = dlopen(library_name, RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) return;
    libdeflate.alloc_compressor = (void *(*)(int))dlsym(library, "libdeflate_alloc_compressor");
    libdeflate.deflate_compress =
        (size_t (*)(void *, const void *, size_t, void *, size_t))dlsym(library, "libdeflate_deflate_compress");
    libdeflate.free_compressor = (void (*)(void *))dlsym(library, "libdeflate_free_compressor");
    if (libdeflate.alloc_compressor && libdeflate.deflate_compress && libdeflate.free_compressor) {
        libdeflate.loaded = 1;
    } else {
        dlclose(library);
    }
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

#endif
