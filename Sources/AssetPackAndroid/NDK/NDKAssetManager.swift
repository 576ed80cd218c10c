import CAndroidAssets

/// Android's native asset manager, the `AAssetManager*` of `<android/asset_manager.h>`, through the few
/// calls assetpack makes; the rules below keep every caller clear of the NDK's quirks.
///
/// An app gets the pointer from `AAssetManager_fromJava(env, context.getAssets())`; it stays valid while
/// the Java `AssetManager` object lives. It may be used from several threads at once (Android locks it).
///
/// On Linux the same calls reach Android 10's `libandroidfw` through the host shim (`Tools/AndroidHostShim`).
public struct NDKAssetManager: @unchecked Sendable {
    /// The `AAssetManager*`.
    public let pointer: OpaquePointer

    /// Wraps an `AAssetManager*` the caller keeps alive.
    public init(_ pointer: OpaquePointer) {
        self.pointer = pointer
    }

    /// How an asset will be read: the NDK's `AASSET_MODE_*` hint.
    public enum AccessMode: Sendable {
        /// `AASSET_MODE_UNKNOWN`.
        case unknown
        /// `AASSET_MODE_RANDOM`: chunks, seeking forward and back.
        case random
        /// `AASSET_MODE_STREAMING`: front to back.
        case streaming
        /// `AASSET_MODE_BUFFER`: the whole asset at once.
        case buffer

        var value: Int32 {
            switch self {
            case .unknown: Int32(AASSET_MODE_UNKNOWN)
            case .random: Int32(AASSET_MODE_RANDOM)
            case .streaming: Int32(AASSET_MODE_STREAMING)
            case .buffer: Int32(AASSET_MODE_BUFFER)
            }
        }
    }

    /// Opens the asset `name` (a path below the APK's `assets/`), or returns nil when there is none.
    ///
    /// A name that is empty, ends with `/` or starts with `/` is never handed to the NDK, and gives nil as a
    /// folder does: on an APK whose zip has directory entries, Android 10 opens `"dir/"`, and `""` (the
    /// `assets/` entry), as 0-byte assets, which must never pass for files; and a leading `/` lets the
    /// legacy AssetManager reach outside `assets/`.
    /// - Complexity: one zip lookup; a deflated asset is inflated only as it is read.
    /// - Note: The corresponding C function is `AAssetManager_open`.
    public func open(_ name: String, mode: AccessMode = .streaming) -> NDKAsset? {
        guard Self.isAssetName(name) else { return nil }
        guard let asset = AAssetManager_open(pointer, name, mode.value) else { return nil }
        return NDKAsset(asset, name: name)
    }

    /// The regular files directly inside the folder `directory` ("" for `assets/` itself), as the NDK
    /// lists them: **folders never appear**, and a missing folder lists as an empty one (`[]`). Empty
    /// names are dropped: the legacy AssetManager (Android 8.1 and older) reports a phantom `""` for a
    /// folder's own directory entry. Trailing `/` are removed first (the legacy AssetManager lists
    /// nothing for `"dir/"`); a name starting with `/` lists nothing.
    /// - Note: The corresponding C functions are `AAssetManager_openDir`, `AAssetDir_getNextFileName` and
    ///   `AAssetDir_close`.
    public func fileNames(in directory: String) -> [String] {
        guard !directory.hasPrefix("/") else { return [] }
        var folder = Substring(directory)
        while folder.hasSuffix("/") { folder.removeLast() }
        guard let handle = AAssetManager_openDir(pointer, String(folder)) else { return [] }
        defer { AAssetDir_close(handle) }
        var names: [String] = []
        while let next = AAssetDir_getNextFileName(handle) {
            let name = String(cString: next)
            if !name.isEmpty { names.append(name) }
        }
        return names
    }

    /// True for a name the NDK may be asked to open: not empty, no `/` at either end.
    static func isAssetName(_ name: String) -> Bool {
        !name.isEmpty && !name.hasPrefix("/") && !name.hasSuffix("/")
    }
}
