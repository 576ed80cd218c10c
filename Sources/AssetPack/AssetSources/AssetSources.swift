import AssetPackSystem
import AssetPackZip

/// Picks the right ``AssetSource`` for something on disk, as `assetpack expand BUNDLE --root PREFIX` does.
public enum AssetSources {
    /// The asset tree at `path`, as the app will see it: a folder or an archive (zip, APK, IPA, jar —
    /// recognised by content, not by name), seen through ``view(of:)`` so that a packed bundle shows its
    /// logical tree.
    /// - Parameters:
    ///   - path: a folder, or a file that is a zip archive.
    ///   - root: the folder inside it where the tree starts (e.g. `"assets"` of an APK); nil for the top.
    /// - Throws: `.notFound` when `path` does not exist; `.archive` when a file is not a zip archive;
    ///   `.unsafePath` for a bad `root`; `.manifest` for a broken manifest; `.io`.
    public static func open(path: String, root: String?) throws(AssetPackError) -> any AssetSource {
        try view(of: try container(path: path, root: root))
    }

    /// The tree at `path` as stored, without the packed-bundle view: a ``DirectorySource`` for a folder
    /// (starting at its subfolder `root`), a ``ZipAssetSource`` for any other file.
    /// - Throws: as ``open(path:root:)``, except for manifest errors.
    public static func container(path: String, root: String?) throws(AssetPackError) -> any AssetSource {
        guard let info = try io(FileSystem.status(path, followingLinks: true)) else {
            throw AssetPackError(.notFound, "no such file or folder", path: path)
        }
        let inner = try AssetPath(root ?? "")
        if info.kind == .directory {
            return DirectorySource(root: inner.isRoot ? path : path + "/" + inner.string)
        }
        guard info.kind == .file else {
            throw AssetPackError(.invalidArgument, "is a \(info.kind), not a file or folder: an archive is read by offset, so "
                                 + "save it to a file first", path: path)
        }
        return try ZipAssetSource(path: path, root: inner.string)
    }

    /// `source` itself when it holds no bundle manifest, else the ``PackedBundleSource`` view over it.
    /// - Throws: `.manifest` when the manifest is present but malformed; read errors.
    public static func view(of source: any AssetSource) throws(AssetPackError) -> any AssetSource {
        guard let manifest = try BundleManifest.read(from: source) else { return source }
        return try PackedBundleSource(base: source, checked: manifest)
    }
}
