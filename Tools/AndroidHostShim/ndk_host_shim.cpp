// The NDK's asset API (<android/asset_manager.h>) for a Linux host, on Debian's build of Android 10's
// libandroidfw — the code Android itself runs — so assetpack's AAssetManager source can be tested
// against the real AssetManager on real APKs without a device.
//
// Each function follows the NDK's own implementation (frameworks/base/native/android/asset_manager.cpp):
// Android 10's on AssetManager2 + ApkAssets, and, for the legacy backend, Android 8.1's on
// android::AssetManager (addAssetPath). Only the manager's creation differs: an app gets its
// AAssetManager from AAssetManager_fromJava; here assetpack_host_open_apk opens one over an APK file.
//
// Compiled against the genuine NDK header, and checked against the declarations Swift sees
// (Sources/CAndroidAssets), by build.sh. Loaded at run time by Sources/CAndroidAssets/HostLoader.c.

#include <android/asset_manager.h>

#include <androidfw/ApkAssets.h>
#include <androidfw/Asset.h>
#include <androidfw/AssetDir.h>
#include <androidfw/AssetManager.h>
#include <androidfw/AssetManager2.h>

#include <memory>
#include <mutex>
#include <type_traits>
#include <vector>

#include "assetpack_ndk_table.h"

// The table Swift calls through must match the genuine prototypes exactly.
#define SAME_AS_NDK(name) \
    static_assert(std::is_same<decltype(&::name), decltype(assetpack_ndk_functions::name)>::value, \
                  #name " differs from <android/asset_manager.h>")
SAME_AS_NDK(AAssetManager_openDir);
SAME_AS_NDK(AAssetManager_open);
SAME_AS_NDK(AAssetDir_getNextFileName);
SAME_AS_NDK(AAssetDir_close);
SAME_AS_NDK(AAsset_read);
SAME_AS_NDK(AAsset_seek64);
SAME_AS_NDK(AAsset_getLength64);
SAME_AS_NDK(AAsset_openFileDescriptor64);
SAME_AS_NDK(AAsset_close);
#undef SAME_AS_NDK

using android::Asset;
using android::AssetDir;

namespace {

// What AAssetManager* points to here. AssetManager.h defines `struct AAssetManager {}` (the legacy
// AssetManager derives from it), so the host manager does too.
struct HostManager : AAssetManager {
    int backend = ASSETPACK_HOST_BACKEND_ASSETMANAGER2;
    // AssetManager2 is not thread-safe; the NDK guards it with a lock (Guarded<AssetManager2>).
    std::mutex lock;
    std::unique_ptr<const android::ApkAssets> apk;
    android::AssetManager2 modern;
    // The legacy AssetManager locks itself.
    std::unique_ptr<android::AssetManager> legacy;
};

HostManager *host(AAssetManager *mgr) { return static_cast<HostManager *>(mgr); }

bool accessMode(int mode, Asset::AccessMode *out) {
    switch (mode) {
    case AASSET_MODE_UNKNOWN: *out = Asset::ACCESS_UNKNOWN; return true;
    case AASSET_MODE_RANDOM: *out = Asset::ACCESS_RANDOM; return true;
    case AASSET_MODE_STREAMING: *out = Asset::ACCESS_STREAMING; return true;
    case AASSET_MODE_BUFFER: *out = Asset::ACCESS_BUFFER; return true;
    default: return false;
    }
}

}  // namespace

struct AAssetDir {
    std::unique_ptr<AssetDir> dir;
    size_t index = 0;
    android::String8 cachedName;
};

struct AAsset {
    std::unique_ptr<Asset> asset;
};

extern "C" {

AAssetManager *assetpack_host_open_apk(const char *apkPath, int backend) {
    auto manager = std::make_unique<HostManager>();
    manager->backend = backend;
    if (backend == ASSETPACK_HOST_BACKEND_LEGACY) {
        manager->legacy = std::make_unique<android::AssetManager>();
        if (!manager->legacy->addAssetPath(android::String8(apkPath), nullptr)) return nullptr;
        return manager.release();
    }
    if (backend != ASSETPACK_HOST_BACKEND_ASSETMANAGER2) return nullptr;
    manager->apk = android::ApkAssets::Load(apkPath);
    if (manager->apk == nullptr) return nullptr;
    if (!manager->modern.SetApkAssets({manager->apk.get()})) return nullptr;
    return manager.release();
}

void assetpack_host_close_manager(AAssetManager *mgr) { delete host(mgr); }

AAssetDir *AAssetManager_openDir(AAssetManager *mgr, const char *dirName) {
    HostManager *manager = host(mgr);
    std::unique_ptr<AssetDir> dir;
    if (manager->legacy) {
        dir.reset(manager->legacy->openDir(dirName));
    } else {
        std::lock_guard<std::mutex> guard(manager->lock);
        dir = manager->modern.OpenDir(dirName);
    }
    if (dir == nullptr) return nullptr;
    auto result = new AAssetDir;
    result->dir = std::move(dir);
    return result;
}

AAsset *AAssetManager_open(AAssetManager *mgr, const char *filename, int mode) {
    Asset::AccessMode access;
    if (!accessMode(mode, &access)) return nullptr;
    HostManager *manager = host(mgr);
    std::unique_ptr<Asset> asset;
    if (manager->legacy) {
        asset.reset(manager->legacy->open(filename, access));
    } else {
        std::lock_guard<std::mutex> guard(manager->lock);
        asset = manager->modern.Open(filename, access);
    }
    if (asset == nullptr) return nullptr;
    auto result = new AAsset;
    result->asset = std::move(asset);
    return result;
}

// As the NDK: regular files only; subfolders are never reported.
const char *AAssetDir_getNextFileName(AAssetDir *assetDir) {
    size_t index = assetDir->index;
    const size_t count = assetDir->dir->getFileCount();
    while (index < count && assetDir->dir->getFileType(index) != android::kFileTypeRegular) index++;
    const char *name = nullptr;
    if (index < count) {
        assetDir->cachedName = assetDir->dir->getFileName(index);
        name = assetDir->cachedName.string();
        index++;
    }
    assetDir->index = index;
    return name;
}

void AAssetDir_rewind(AAssetDir *assetDir) { assetDir->index = 0; }

void AAssetDir_close(AAssetDir *assetDir) { delete assetDir; }

int AAsset_read(AAsset *asset, void *buf, size_t count) {
    return static_cast<int>(asset->asset->read(buf, count));
}

off_t AAsset_seek(AAsset *asset, off_t offset, int whence) {
    return static_cast<off_t>(asset->asset->seek(offset, whence));
}

off64_t AAsset_seek64(AAsset *asset, off64_t offset, int whence) { return asset->asset->seek(offset, whence); }

void AAsset_close(AAsset *asset) {
    asset->asset->close();
    delete asset;
}

const void *AAsset_getBuffer(AAsset *asset) { return asset->asset->getBuffer(false); }

off_t AAsset_getLength(AAsset *asset) { return static_cast<off_t>(asset->asset->getLength()); }

off64_t AAsset_getLength64(AAsset *asset) { return asset->asset->getLength(); }

off_t AAsset_getRemainingLength(AAsset *asset) { return static_cast<off_t>(asset->asset->getRemainingLength()); }

off64_t AAsset_getRemainingLength64(AAsset *asset) { return asset->asset->getRemainingLength(); }

int AAsset_openFileDescriptor(AAsset *asset, off_t *outStart, off_t *outLength) {
    off64_t start = 0, length = 0;
    int fd = asset->asset->openFileDescriptor(&start, &length);
    *outStart = static_cast<off_t>(start);
    *outLength = static_cast<off_t>(length);
    return fd;
}

int AAsset_openFileDescriptor64(AAsset *asset, off64_t *outStart, off64_t *outLength) {
    return asset->asset->openFileDescriptor(outStart, outLength);
}

int AAsset_isAllocated(AAsset *asset) { return asset->asset->isAllocated() ? 1 : 0; }

}  // extern "C"
