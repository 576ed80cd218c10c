import AssetPackAndroid
import CAndroidAssets
import Foundation
import Testing
import TestSupport

/// Android 10's real AssetManager on this Linux host: the Debian packages it needs, and the host shim
/// (`Tools/AndroidHostShim`) built with their headers and loaded into this process, once.
///
/// Without the packages every test that needs them is skipped with the reason shown (or fails, under
/// `ASSETPACK_REQUIRE_TOOLS=1`): put ``needed`` on the suite and call ``require()`` first.
enum AndroidHost {
    /// Android 10's `libandroidfw` (AssetManager, AssetManager2, ApkAssets).
    static let androidfw = ExternalLibrary("libandroidfw.so", package: "android-libandroidfw-dev",
                                           at: "/usr/lib/*/android/libandroidfw.so", "/usr/lib/android/libandroidfw.so")
    /// The zip reader `libandroidfw` runs on.
    static let ziparchive = ExternalLibrary("libziparchive.so", package: "android-libziparchive-dev",
                                            at: "/usr/lib/*/android/libziparchive.so", "/usr/lib/android/libziparchive.so")
    /// The NDK's own `<android/asset_manager.h>`, which the shim is compiled against.
    static let ndkHeader = ExternalLibrary("android/asset_manager.h", package: "android-platform-frameworks-native-headers",
                                           at: "/usr/include/android/android/asset_manager.h")
    /// The compiler that builds the shim.
    static let compiler = ExternalTool("g++", package: "g++")

    /// The trait of a suite that runs on the host AssetManager: skipped, naming the first package missing
    /// (unless `ASSETPACK_REQUIRE_TOOLS=1`, when its tests run and fail in ``require()``).
    static var needed: ConditionTrait {
        [androidfw, ziparchive, ndkHeader].first { !$0.isInstalled }?.needed ?? compiler.needed
    }

    /// Returns once the shim is loaded; skips (or fails) the test when a package is missing.
    static func require(sourceLocation: SourceLocation = #_sourceLocation) throws {
        for library in [androidfw, ziparchive, ndkHeader] { try library.require(sourceLocation: sourceLocation) }
        try compiler.require(sourceLocation: sourceLocation)
        try loaded.get()
    }

    /// The shim, built and loaded at the first ``require()`` of the process.
    private static let loaded: Result<Void, ShimFailure> = Result { () throws(ShimFailure) in
        let library = try buildShim()
        guard assetpack_host_load(library) == 0 else {
            throw ShimFailure("cannot load \(library): \(String(cString: assetpack_host_error()))")
        }
    }

    /// Builds the shim into `.build/android-host-shim/`, named by a hash of its sources, unless it is there.
    private static func buildShim() throws(ShimFailure) -> String {
        let sources = ["Tools/AndroidHostShim/ndk_host_shim.cpp", "Tools/AndroidHostShim/build.sh",
                       "Sources/CAndroidAssets/include/assetpack_ndk_table.h"]
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a over the sources
        for source in sources {
            guard let bytes = FileManager.default.contents(atPath: packageRoot + "/" + source) else {
                throw ShimFailure("cannot read \(source)")
            }
            for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        }
        let library = packageRoot + "/.build/android-host-shim/libassetpack-ndk-host-\(String(hash, radix: 16)).so"
        if FileManager.default.fileExists(atPath: library) { return library }
        let result: CommandResult
        do {
            result = try run(packageRoot + "/Tools/AndroidHostShim/build.sh", [library])
        } catch {
            throw ShimFailure("cannot run Tools/AndroidHostShim/build.sh: \(error)")
        }
        guard result.status == 0 else { throw ShimFailure("Tools/AndroidHostShim/build.sh failed: \(result.stderr)") }
        return library
    }

    /// The package's folder, from this file's place in it.
    static let packageRoot: String = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
}

/// Why the host shim could not be built or loaded.
struct ShimFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Which of Android's two asset managers the host shim runs the NDK calls on.
enum AssetBackend: CaseIterable, CustomStringConvertible, Sendable {
    /// AssetManager2 + ApkAssets: the NDK of Android 9 and later (this is Android 10's).
    case assetManager2
    /// The legacy android::AssetManager: the NDK up to Android 8.1.
    case legacy

    var code: Int32 {
        switch self {
        case .assetManager2: ASSETPACK_HOST_BACKEND_ASSETMANAGER2
        case .legacy: ASSETPACK_HOST_BACKEND_LEGACY
        }
    }

    var description: String { self == .assetManager2 ? "AssetManager2" : "legacy AssetManager" }
}

/// An AssetManager over one APK, as an app's process has over its `sourceDir`; closed when released.
/// Keep it alive while any ``NDKAssetManager`` or source made from it is used.
final class HostAssetManager: @unchecked Sendable {
    /// The manager as the app's code sees it.
    let manager: NDKAssetManager
    /// The APK's path.
    let apk: String

    /// Opens `apk` with `backend`. Call ``AndroidHost/require()`` first.
    init(apk: String, backend: AssetBackend) throws {
        guard let pointer = assetpack_host_open_apk(apk, backend.code) else {
            throw ShimFailure("\(backend) cannot open \(apk)")
        }
        self.manager = NDKAssetManager(pointer)
        self.apk = apk
    }

    deinit { assetpack_host_close_manager(manager.pointer) }
}
