// Compares the deflate encoders assetpack could use, as `build` uses them: independent 4 MiB blocks of one
// file, each compressed alone. Prints seconds and output bytes for zlib 4-6, libdeflate 4-7 and ISA-L 1-3.
// Single thread, input read into memory first (at most MAX bytes), so only the encoders are timed.
//
//   gcc -O2 Tools/Benchmarks/codecs.c -o /tmp/codecs -lz -ldeflate -lisal
//   /tmp/codecs FILE [MAX]        (Debian: zlib1g-dev, libdeflate-dev, libisal-dev)
#include <isa-l/igzip_lib.h>
#include <libdeflate.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

static const size_t block_size = 4 << 20;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static size_t zlib_block(int level, const unsigned char *in, size_t count, unsigned char *out, size_t room) {
    z_stream s;
    memset(&s, 0, sizeof s);
    deflateInit2(&s, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY);
    s.next_in = (unsigned char *)in;
    s.avail_in = (uInt)count;
    s.next_out = out;
    s.avail_out = (uInt)room;
    deflate(&s, Z_FULL_FLUSH);
    deflateEnd(&s);
    return room - s.avail_out;
}

static size_t isal_block(int level, const unsigned char *in, size_t count, unsigned char *out, size_t room) {
    static const size_t level_buffers[] = {0, ISAL_DEF_LVL1_DEFAULT, ISAL_DEF_LVL2_DEFAULT, ISAL_DEF_LVL3_DEFAULT};
    static unsigned char *buffer;
    static size_t buffer_size;
    if (buffer_size < level_buffers[level]) {
        free(buffer);
        buffer_size = level_buffers[level];
        buffer = malloc(buffer_size);
    }
    struct isal_zstream s;
    isal_deflate_init(&s);
    s.level = level;
    s.level_buf = buffer;
    s.level_buf_size = (uint32_t)level_buffers[level];
    s.flush = FULL_FLUSH;
    s.next_in = (unsigned char *)in;
    s.avail_in = (uint32_t)count;
    s.next_out = out;
    s.avail_out = (uint32_t)room;
    isal_deflate(&s);
    return room - s.avail_out;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE [MAX]\n", argv[0]);
        return 2;
    }
    size_t max = argc > 2 ? strtoull(argv[2], NULL, 10) : (size_t)256 << 20;
    FILE *file = fopen(argv[1], "rb");
    if (file == NULL) {
        perror(argv[1]);
        return 1;
    }
    unsigned char *in = malloc(max), *out = malloc(block_size * 2);
    size_t count = fread(in, 1, max, file);
    fclose(file);
    printf("%s: %zu bytes in %zu-byte blocks\n", argv[1], count, block_size);
    for (int level = 4; level <= 6; level++) {
        double start = now();
        size_t total = 0;
        for (size_t at = 0; at < count; at += block_size)
            total += zlib_block(level, in + at, count - at < block_size ? count - at : block_size, out, block_size * 2);
        printf("zlib-%d\t%.3f s\t%zu\n", level, now() - start, total);
    }
    for (int level = 4; level <= 7; level++) {
        struct libdeflate_compressor *compressor = libdeflate_alloc_compressor(level);
        double start = now();
        size_t total = 0;
        for (size_t at = 0; at < count; at += block_size)
            total += libdeflate_deflate_compress(compressor, in + at, count - at < block_size ? count - at : block_size,
                                                 out, block_size * 2);
        printf("libdeflate-%d\t%.3f s\t%zu\n", level, now() - start, total);
        libdeflate_free_compressor(compressor);
    }
    for (int level = 1; level <= 3; level++) {
        double start = now();
        size_t total = 0;
        for (size_t at = 0; at < count; at += block_size)
            total += isal_block(level, in + at, count - at < block_size ? count - at : block_size, out, block_size * 2);
        printf("isal-%d\t%.3f s\t%zu\n", level, now() - start, total);
    }
    return 0;
}
