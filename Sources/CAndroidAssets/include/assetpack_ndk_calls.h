#ifndef ASSETPACK_NDK_CALLS_H
#define ASSETPACK_NDK_CALLS_H
// Host builds only: the NDK's function names, each forwarding to the loaded shim's function of that
// name. Static inline, so no symbol of this module is named like an NDK function: the shim's own
// AAsset_* symbols stay the only ones in the process.
#if !defined(__ANDROID__)

#include "assetpack_ndk_table.h"

static inline AAssetDir *AAssetManager_openDir(AAssetManager *mgr, const char *dirName) {
    return assetpack_ndk()->AAssetManager_openDir(mgr, dirName);
}
static inline AAsset *AAssetManager_open(AAssetManager *mgr, const char *filename, int mode) {
    return assetpack_ndk()->AAssetManager_open(mgr, filename, mode);
}
static inline const char *AAssetDir_getNextFileName(AAssetDir *assetDir) {
    return assetpack_ndk()->AAssetDir_getNextFileName(assetDir);
}
static inline void AAssetDir_close(AAssetDir *assetDir) {
    assetpack_ndk()->AAssetDir_close(assetDir);
}
static inline int AAsset_read(AAsset *asset, void *buf, size_t count) {
    return assetpack_ndk()->AAsset_read(asset, buf, count);
}
static inline int64_t AAsset_seek64(AAsset *asset, int64_t offset, int whence) {
    return assetpack_ndk()->AAsset_seek64(asset, offset, whence);
}
static inline int64_t AAsset_getLength64(AAsset *asset) {
    return assetpack_ndk()->AAsset_getLength64(asset);
}
static inline int AAsset_openFileDescriptor64(AAsset *asset, int64_t *outStart, int64_t *outLength) {
    return assetpack_ndk()->AAsset_openFileDescriptor64(asset, outStart, outLength);
}
static inline void AAsset_close(AAsset *asset) {
    assetpack_ndk()->AAsset_close(asset);
}
/// Host only: see assetpack_ndk_functions.
static inline AAssetManager *assetpack_host_open_apk(const char *apkPath, int backend) {
    return assetpack_ndk()->assetpack_host_open_apk(apkPath, backend);
}
/// Host only: see assetpack_ndk_functions.
static inline void assetpack_host_close_manager(AAssetManager *mgr) {
    assetpack_ndk()->assetpack_host_close_manager(mgr);
}

#endif
#endif
