// ISA-L's inflate and CRC-32, resolved with dlopen so that a binary built here runs on a machine without
// ISA-L (it then reports "unavailable" and the caller keeps zlib). The header gives the layout of
// `struct inflate_state`, which is part of libisal.so.2's ABI.
#include "CIsal.h"

#if __has_include(<isa-l/igzip_lib.h>) && __has_include(<dlfcn.h>) && __has_include(<pthread.h>)
#include <dlfcn.h>
#include <isa-l/igzip_lib.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static struct {
    void (*inflate_init)(struct inflate_state *);
    void (*inflate_reset)(struct inflate_state *);
    int (*inflate)(struct inflate_state *);
    uint32_t (*crc32)(uint32_t, const unsigned char *, uint64_t);
    int loaded;
} isal;

static pthread_once_t isal_once = PTHREAD_ONCE_INIT;

static void isal_load(void) {
    const char *choice = getenv("ASSETPACK_INFLATER");
    if (choice != NULL && strcmp(choice, "zlib") == 0) return;
    void *library = dlopen("libisal.so.2", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) return;
    isal.inflate_init = (void (*)(struct inflate_state *))dlsym(library, "isal_inflate_init");
    isal.inflate_reset = (void (*)(struct inflate_state *))dlsym(library, "isal_inflate_reset");
    isal.inflate = (int (*)(struct inflate_state *))dlsym(library, "isal_inflate");
    isal.crc32 = (uint32_t (*)(uint32_t, const unsigned char *, uint64_t))dlsym(library, "crc32_gzip_refl");
    if (isal.inflate_init && isal.inflate_reset && isal.inflate && isal.crc32) {
        isal.loaded = 1;
    } else {
        dlclose(library);
    }
}

int assetpack_isal_available(void) {
    pthread_once(&isal_once, isal_load);
    return isal.loaded;
}

struct assetpack_isal_inflater {
    struct inflate_state state;
};

assetpack_isal_inflater *assetpack_isal_inflater_create(void) {
    if (!assetpack_isal_available()) return NULL;
    assetpack_isal_inflater *inflater = malloc(sizeof(assetpack_isal_inflater));
    if (inflater == NULL) return NULL;
    isal.inflate_init(&inflater->state);
    inflater->state.crc_flag = ISAL_DEFLATE;
    return inflater;
}

void assetpack_isal_inflater_reset(assetpack_isal_inflater *inflater) {
    isal.inflate_reset(&inflater->state);
    inflater->state.crc_flag = ISAL_DEFLATE;
}

void assetpack_isal_inflater_destroy(assetpack_isal_inflater *inflater) { free(inflater); }

int assetpack_isal_inflate(assetpack_isal_inflater *inflater, const uint8_t *input, size_t input_count,
                           uint8_t *output, size_t output_count, size_t *consumed, size_t *produced, int *finished) {
    struct inflate_state *state = &inflater->state;
    uint32_t in_count = input_count > UINT32_MAX ? UINT32_MAX : (uint32_t)input_count;
    uint32_t out_count = output_count > UINT32_MAX ? UINT32_MAX : (uint32_t)output_count;
    state->next_in = (uint8_t *)input;
    state->avail_in = in_count;
    state->next_out = output;
    state->avail_out = out_count;
    int status = state->block_state == ISAL_BLOCK_FINISH ? ISAL_DECOMP_OK : isal.inflate(state);
    size_t used = in_count - state->avail_in;
    int input_done = state->block_state == ISAL_BLOCK_INPUT_DONE || state->block_state == ISAL_BLOCK_FINISH;
    int output_full = state->avail_out == 0;
    if ((input_done || output_full) && state->block_state != ISAL_BLOCK_HDR && state->read_in_length >= 8 &&
        (size_t)state->read_in_length / 8 <= used) {
        // ISA-L loads input into a 64-bit bit buffer ahead of decoding. When a call stops for want of output
        // room, or at the end of the stream, the whole bytes still there go back to the caller (who passes
        // them again), so that `consumed` is exact: at the end it ends where the deflate data ends (a data
        // descriptor, the next block or other data follows). Not when a call stops for want of input: ISA-L
        // then needs those bits, and none of them lie past the end. Not in the middle of a block header,
        // which ISA-L parses from its own copy of the input.
        uint32_t back = (uint32_t)state->read_in_length / 8;
        state->read_in_length -= (int32_t)(back * 8);
        state->read_in &= (1ULL << state->read_in_length) - 1;
        used -= back;
    }
    *finished = state->block_state == ISAL_BLOCK_FINISH;
    *consumed = used;
    *produced = out_count - state->avail_out;
    state->next_in = NULL;
    state->next_out = NULL;
    return status < 0 ? status : 0;
}

uint32_t assetpack_isal_crc32(uint32_t crc, const uint8_t *bytes, size_t count) {
    return isal.crc32(crc, bytes, count);
}

#else

int assetpack_isal_available(void) { return 0; }
assetpack_isal_inflater *assetpack_isal_inflater_create(void) { return NULL; }
void assetpack_isal_inflater_reset(assetpack_isal_inflater *inflater) { (void)inflater; }
void assetpack_isal_inflater_destroy(assetpack_isal_inflater *inflater) { (void)inflater; }
int assetpack_isal_inflate(assetpack_isal_inflater *inflater, const uint8_t *input, size_t input_count,
                           uint8_t *output, size_t output_count, size_t *consumed, size_t *produced, int *finished) {
    (void)inflater; (void)input; (void)input_count; (void)output; (void)output_count;
    *consumed = 0;
    *produced = 0;
    *finished = 0;
    return -1;
}
uint32_t assetpack_isal_crc32(uint32_t crc, const uint8_t *bytes, size_t count) {
    (void)bytes; (void)count;
    return crc;
}

#endif
