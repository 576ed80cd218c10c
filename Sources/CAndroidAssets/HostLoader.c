// Host builds only: loads the host shim with dlopen and fills the NDK function table from it.
// On Android this file compiles to nothing: the calls go straight to libandroid.
#if !defined(__ANDROID__)

#include "assetpack_ndk_table.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

// Stand-ins before a load: each fails the way the NDK reports a missing asset.
static AAssetDir *missing_openDir(AAssetManager *m, const char *d) { (void)m; (void)d; return NULL; }
static AAsset *missing_open(AAssetManager *m, const char *f, int mode) { (void)m; (void)f; (void)mode; return NULL; }
static const char *missing_next(AAssetDir *d) { (void)d; return NULL; }
static void missing_closeDir(AAssetDir *d) { (void)d; }
static int missing_read(AAsset *a, void *b, size_t c) { (void)a; (void)b; (void)c; return -1; }
static int64_t missing_seek(AAsset *a, int64_t o, int w) { (void)a; (void)o; (void)w; return -1; }
static int64_t missing_length(AAsset *a) { (void)a; return -1; }
static int missing_fd(AAsset *a, int64_t *s, int64_t *l) { (void)a; (void)s; (void)l; return -1; }
static void missing_close(AAsset *a) { (void)a; }
static AAssetManager *missing_openApk(const char *p, int b) { (void)p; (void)b; return NULL; }
static void missing_closeManager(AAssetManager *m) { (void)m; }

static const assetpack_ndk_functions missing = {
    missing_openDir, missing_open, missing_next, missing_closeDir, missing_read, missing_seek,
    missing_length, missing_fd, missing_close, missing_openApk, missing_closeManager,
};

static assetpack_ndk_functions loadedTable;
static const assetpack_ndk_functions *current = &missing;
static pthread_mutex_t loadLock = PTHREAD_MUTEX_INITIALIZER;
static char lastError[512];

const assetpack_ndk_functions *assetpack_ndk(void) {
    return __atomic_load_n(&current, __ATOMIC_ACQUIRE);
}

const char *assetpack_host_error(void) { return lastError; }

// Looks up `name` in `library` into `slot`; on failure records why and returns -1.
static int take(void *library, const char *name, void **slot) {
    *slot = dlsym(library, name);
    if (*slot != NULL) return 0;
    snprintf(lastError, sizeof lastError, "the shim lacks %s", name);
    return -1;
}

static int fill(void *library, assetpack_ndk_functions *table) {
#define TAKE(field) if (take(library, #field, (void **)&table->field) != 0) return -1
    TAKE(AAssetManager_openDir);
    TAKE(AAssetManager_open);
    TAKE(AAssetDir_getNextFileName);
    TAKE(AAssetDir_close);
    TAKE(AAsset_read);
    TAKE(AAsset_seek64);
    TAKE(AAsset_getLength64);
    TAKE(AAsset_openFileDescriptor64);
    TAKE(AAsset_close);
    TAKE(assetpack_host_open_apk);
    TAKE(assetpack_host_close_manager);
#undef TAKE
    return 0;
}

int assetpack_host_load(const char *path) {
    pthread_mutex_lock(&loadLock);
    int result = 0;
    if (assetpack_ndk() == &missing) {
        // RTLD_LOCAL: the shim's NDK symbols are reached only through this table.
        void *library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (library == NULL) {
            snprintf(lastError, sizeof lastError, "dlopen failed: %s", dlerror());
            result = -1;
        } else if (fill(library, &loadedTable) != 0) {
            dlclose(library);
            result = -1;
        } else {
            lastError[0] = 0;
            __atomic_store_n(&current, &loadedTable, __ATOMIC_RELEASE);
        }
    }
    pthread_mutex_unlock(&loadLock);
    return result;
}

#endif
