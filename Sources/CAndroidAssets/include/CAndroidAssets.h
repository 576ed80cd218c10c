#ifndef ASSETPACK_CANDROIDASSETS_H
#define ASSETPACK_CANDROIDASSETS_H
// The C side of AssetPackAndroid: the NDK's asset API (<android/asset_manager.h>) under its own names.
//
// On Android this is the NDK itself: the genuine header, linked with libandroid.
// Elsewhere (Linux) the same names are declared here and forwarded, through a table of function
// pointers, to a host shim loaded at run time (Tools/AndroidHostShim: the NDK calls implemented on
// Android 10's libandroidfw and compiled against the genuine header). Nothing here needs the Android
// packages to build: without the shim every call fails as the NDK does for a missing asset.

#if defined(__ANDROID__)
#include <android/asset_manager.h>
#else
#include "assetpack_ndk_table.h"
#include "assetpack_ndk_calls.h"
#endif

#endif
