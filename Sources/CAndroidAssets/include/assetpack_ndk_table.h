#ifndef ASSETPACK_NDK_TABLE_H
#define ASSETPACK_NDK_TABLE_H
// Host builds only: the NDK asset types, and the table of NDK functions the host loader fills from the
// shim. The host shim includes this after the genuine <android/asset_manager.h> and checks every member's
// type against the genuine prototype, so a copy that drifts from the NDK does not compile.
#if !defined(__ANDROID__)

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef ANDROID_ASSET_MANAGER_H
// As in <android/asset_manager.h> (API level 9; the *64 calls from level 13).
typedef struct AAssetManager AAssetManager;
typedef struct AAssetDir AAssetDir;
typedef struct AAsset AAsset;
enum {
    AASSET_MODE_UNKNOWN = 0,
    AASSET_MODE_RANDOM = 1,
    AASSET_MODE_STREAMING = 2,
    AASSET_MODE_BUFFER = 3
};
#endif

// The NDK calls assetpack makes, plus two host-only calls that stand in for AAssetManager_fromJava.
// off64_t is int64_t here, as on Android (bionic defines it so); glibc exposes off64_t only with
// _LARGEFILE64_SOURCE.
typedef struct assetpack_ndk_functions {
    AAssetDir *(*AAssetManager_openDir)(AAssetManager *mgr, const char *dirName);
    AAsset *(*AAssetManager_open)(AAssetManager *mgr, const char *filename, int mode);
    const char *(*AAssetDir_getNextFileName)(AAssetDir *assetDir);
    void (*AAssetDir_close)(AAssetDir *assetDir);
    int (*AAsset_read)(AAsset *asset, void *buf, size_t count);
    int64_t (*AAsset_seek64)(AAsset *asset, int64_t offset, int whence);
    int64_t (*AAsset_getLength64)(AAsset *asset);
    int (*AAsset_openFileDescriptor64)(AAsset *asset, int64_t *outStart, int64_t *outLength);
    void (*AAsset_close)(AAsset *asset);
    /// Host only: an asset manager over the APK at `apkPath` (what the app's process has over its
    /// ApplicationInfo.sourceDir), or NULL. `backend`: ASSETPACK_HOST_BACKEND_*.
    AAssetManager *(*assetpack_host_open_apk)(const char *apkPath, int backend);
    /// Host only: frees a manager from assetpack_host_open_apk.
    void (*assetpack_host_close_manager)(AAssetManager *mgr);
} assetpack_ndk_functions;

/// AssetManager2 + ApkAssets: what the NDK runs on from Android 9 (this is Android 10's code).
#define ASSETPACK_HOST_BACKEND_ASSETMANAGER2 0
/// The legacy android::AssetManager with addAssetPath: what the NDK ran on up to Android 8.1.
#define ASSETPACK_HOST_BACKEND_LEGACY 1

/// The functions calls go to: the loaded shim's, or stand-ins that fail (NULL, -1) before a load.
const assetpack_ndk_functions *assetpack_ndk(void);

/// Loads the host shim at `path` (dlopen) and takes every function above from it.
/// Returns 0, or -1 with the reason in assetpack_host_error(). Loading again is a no-op returning 0.
int assetpack_host_load(const char *path);

/// Why the last assetpack_host_load failed ("" when it did not).
const char *assetpack_host_error(void);

#ifdef __cplusplus
}
#endif

#endif
#endif
