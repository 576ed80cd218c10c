import AssetPack
import AssetPackZip

/// An asset tree read through Android's native asset API (`AAssetManager`), starting at the folder
/// `root` of the APK's `assets/`. The same source file is compiled for Android (the NDK, `libandroid`)
/// and for Linux (the host shim over Android 10's `libandroidfw`); only the C module differs.
///
/// **Listing.** The NDK lists regular files only, never folders, so the tree comes from the packed
/// bundle's manifest under `root` (read through the NDK) when it has one, else from the APK's central
/// directory at `apkPath` (`ApplicationInfo.sourceDir`). ``listing`` says which.
///
/// **Reading** is the NDK's: ``open(_:)`` streams with `AAsset_read`; ``randomAccess(_:)`` hands out a
/// stored asset as a byte range of the APK (`AAsset_openFileDescriptor64`), nil for a deflated one. Where
/// the tree records a size and CRC-32, the stream checks both before it reports the end.
///
/// **The NDK's quirks, and what the source does about them:**
/// - a folder never opens: a path the tree knows as a folder, and the root, fail with `.notFound`
///   without asking the NDK (Android 10 opens a folder's own directory entry `"dir/"`, and `""`, as
///   0-byte assets on a zip that has such entries);
/// - names with a trailing or leading `/`, and empty names, never reach the NDK (``NDKAssetManager``);
/// - a missing folder and an empty one list the same, `[]`; no listed name is empty (the legacy
///   AssetManager's phantom `""`).
///
/// A path the tree does not hold is still asked of the NDK (so the bundle's identity file, say, opens by
/// name), and one the tree holds as a file that the NDK cannot open fails with `.io`, never `.notFound`,
/// which the walker would take for an empty folder.
public struct NDKAssetSource: AssetSource, SizedAssetSource, RandomAccessAssetSource {
    /// Where the tree's folders come from.
    public enum Listing: Sendable, Equatable {
        /// The packed bundle's manifest, read through the NDK.
        case manifest
        /// The central directory of the APK at this path.
        case centralDirectory(apk: String)
    }

    /// The AssetManager read.
    public let manager: NDKAssetManager
    /// The folder below `assets/` the tree starts at, without leading or trailing `/` ("" for `assets/`).
    public var root: String { rootPath.string }
    /// Where the tree's folders come from.
    public let listing: Listing
    let tree: any StoredTree
    private let rootPath: AssetPath

    /// A source over the folder `root` of the APK's `assets/`.
    /// - Parameters:
    ///   - manager: the app's AssetManager (see ``NDKAssetManager``).
    ///   - apkPath: the APK file (`ApplicationInfo.sourceDir`), to list from its central directory when
    ///     the tree is not a packed bundle with a manifest; nil when only bundles are read.
    ///   - root: a folder below `assets/` ("" for all of it).
    ///   - limits: the limits the APK's central directory is read with.
    /// - Throws: `.unsafePath` for a bad `root`; `.manifest` for a malformed manifest; `.invalidArgument`
    ///   when there is no manifest and no `apkPath`; the zip layer's errors for an unreadable APK.
    public init(manager: NDKAssetManager, apkPath: String?, root: String = "",
                limits: ZipLimits = .default) throws(AssetPackError) {
        let rootPath = try AssetPath(root)
        self.manager = manager
        self.rootPath = rootPath
        if let found = try Self.readManifest(manager, root: rootPath) {
            tree = try ManifestStoredTree(found.manifest, origin: "assets/\(Self.joined(rootPath, found.path))")
            listing = .manifest
        } else if let apkPath {
            tree = CentralDirectoryTree(archive: try zipLayer(ZipArchive(path: apkPath, limits: limits)),
                                        prefix: rootPath.isRoot ? "assets" : "assets/" + rootPath.string)
            listing = .centralDirectory(apk: apkPath)
        } else {
            throw AssetPackError(.invalidArgument, "no bundle manifest at \(BundleManifest.path) and no APK path: the NDK lists "
                                 + "no folders, so the tree is unknown (pass ApplicationInfo.sourceDir)",
                                 path: "assets/" + rootPath.string)
        }
    }

    /// `assets/ROOT` of the AssetManager, and where the folders come from.
    public var name: String {
        let folder = root.isEmpty ? "assets" : "assets/" + root
        return switch listing {
        case .manifest: "AAssetManager \(folder) (listed by its manifest)"
        case .centralDirectory(let apk): "AAssetManager \(folder) (listed by \(apk))"
        }
    }

    /// The names directly inside the folder at `path`, from the tree; `[]` for a file or a missing path.
    public func list(_ path: AssetPath) throws(AssetPackError) -> [String] { tree.names(in: path) }

    /// Opens the file at `path` through the NDK, streaming; checked against the tree's size and CRC-32
    /// where it records them.
    /// - Throws: `.notFound` for a folder, the root or a missing path; `.symlink`/`.unsupported` for an
    ///   entry that is not a regular file; `.io` when the NDK cannot open a file the tree holds.
    public func open(_ path: AssetPath) throws(AssetPackError) -> any ByteStream {
        let (asset, node) = try openAsset(path, mode: .streaming)
        guard case .file(let size?, let crc32?) = node else { return asset }
        return VerifyingStream(asset, expectedSize: size, expectedCRC: crc32, name: shown(path))
    }

    /// The size of the file at `path`: the tree's when it records one, else the NDK's; nil for a folder
    /// or a missing path.
    public func size(of path: AssetPath) throws(AssetPackError) -> UInt64? {
        switch tree.node(path) {
        case .file(let size?, _)?: return size
        case .file?: return try openAsset(path, mode: .unknown).asset.length
        default: return nil
        }
    }

    /// A stored asset as a byte range of the APK (`AAsset_openFileDescriptor64`); nil for a deflated one.
    /// The range is not verified: read it as an archive (which checks its own entries) or check it yourself.
    /// - Throws: as ``open(_:)``; `.verification` when the range's length is not the tree's size.
    public func randomAccess(_ path: AssetPath) throws(AssetPackError) -> (any RandomAccessSource)? {
        let (asset, node) = try openAsset(path, mode: .random)
        guard let range = asset.fileRange() else { return nil }
        if case .file(let size?, _) = node, size != range.size {
            throw AssetPackError(.verification, "the AssetManager gives \(range.size) bytes, \(tree.origin) records \(size)",
                                 path: shown(path))
        }
        return range
    }

    /// Opens `path` through the NDK once the tree has said it may be a file.
    private func openAsset(_ path: AssetPath, mode: NDKAssetManager.AccessMode) throws(AssetPackError) -> (asset: NDKAsset, node: StoredNode?) {
        let node = path.isRoot ? .directory : tree.node(path)
        switch node {
        case .directory?: throw AssetPackError(.notFound, "is a directory, not a file", path: shown(path))
        case .refused(let code, let reason)?: throw AssetPackError(code, reason, path: shown(path))
        case .file?, nil: break
        }
        guard let asset = manager.open(Self.joined(rootPath, path.string), mode: mode) else {
            if node == nil { throw AssetPackError(.notFound, "no such file", path: shown(path)) }
            throw AssetPackError(.io, "the AssetManager cannot open it, though \(tree.origin) lists it", path: shown(path))
        }
        return (asset, node)
    }

    /// `path` for messages: the asset's name below `assets/`.
    private func shown(_ path: AssetPath) -> String {
        "assets/" + Self.joined(rootPath, path.string)
    }

    /// `relative` below the folder `root`.
    private static func joined(_ root: AssetPath, _ relative: String) -> String {
        root.isRoot ? relative : relative.isEmpty ? root.string : root.string + "/" + relative
    }

    /// The bundle manifest under `root`, read through the NDK by the one manifest reader (the identity
    /// file beside it checked); nil when there is none.
    private static func readManifest(_ manager: NDKAssetManager, root: AssetPath) throws(AssetPackError) -> BundleManifest.Located? {
        try BundleManifest.locate(named: root.isRoot ? "assets" : "assets/" + root.string) { name in
            manager.open(joined(root, name))
        }
    }
}
