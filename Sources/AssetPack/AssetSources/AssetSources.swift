import AssetPackSystem
import AssetPackZip

/// Picks the right ``AssetSource`` for something on disk, as `assetpack expand BUNDLE --root PREFIX` does.
public enum AssetSources {
    /// The asset tree at `path`, as the app will see it: a folder or an archive (zip, APK, IPA, jar —
    /// recognised by content, not by name), seen through ``view(of:)`` so that a packed bundle shows its
    /// logical tree.
    /// - Parameters:
    ///   - path: a folder, or a file that is a zip archive.
    ///   - root: the folder inside it where the tree starts (e.g. `"assets"` of an APK); nil for the top, or for
    ///     an archive holding one bundle below its top, that bundle's folder.
    /// - Throws: `.notFound` when `path` does not exist; `.archive` when a file is not a zip archive;
    ///   `.unsafePath` for a bad `root`; `.manifest` for a broken manifest; `.invalidArgument` for an archive
    ///   holding several bundles below its top and no `root`; `.io`.
    public static func open(path: String, root: String?) throws(AssetPackError) -> any AssetSource {
        try view(of: try container(path: path, root: root))
    }

    /// The tree at `path` as stored, without the packed-bundle view: a ``DirectorySource`` for a folder
    /// (starting at its subfolder `root`), a ``ZipAssetSource`` for any other file.
    /// - Throws: as ``open(path:root:)``, except for manifest errors.
    public static func container(path: String, root: String?) throws(AssetPackError) -> any AssetSource {
        let inner = try AssetPath(root ?? "")
        if path != standardInput, try io(FileSystem.status(path, followingLinks: true))?.kind == .directory {
            return DirectorySource(root: inner.isRoot ? path : path + "/" + inner.string)
        }
        let archive = try zipArchive(path: path)
        return ZipAssetSource(archive: archive, root: root == nil ? try bundleRoot(of: archive) : inner.string)
    }

    /// Where to start in `archive` when no root is given: the folder of its one bundle when it has a bundle
    /// manifest only below its top (an APK carrying `assets/app.bundle`), so that the bundle is expanded, not
    /// unzipped with its own pack archives; else the top.
    /// - Throws: `.invalidArgument` naming each bundle when there are several.
    static func bundleRoot(of archive: ZipArchive) throws(AssetPackError) -> String {
        let roots = ContainerCheck.bundleRoots(in: archive)
        guard roots.count > 1, !roots.contains("") else { return roots.first ?? "" }
        throw AssetPackError(.invalidArgument, "holds \(roots.count) bundles (\(roots.joined(separator: ", "))); "
                             + "give --root with the one to expand", path: archive.name)
    }

    /// The name of standard input as a path: `-`, as tar and unzip spell it.
    public static let standardInput = "-"

    /// The zip archive at `path`, read by offset: a file as it is; standard input (``standardInput``, or a path
    /// naming it such as `/dev/stdin`), a pipe, is copied first into an unlinked temporary file. Another pipe or
    /// device is refused at once: opening a FIFO nothing writes to would wait forever.
    /// - Throws: `.notFound` for a missing path, `.invalidArgument` for a terminal or a FIFO, the zip layer's errors.
    public static func zipArchive(path: String) throws(AssetPackError) -> ZipArchive {
        let isInput = path == standardInput, name = isInput ? "stdin" : path
        let status = isInput ? nil : try io(FileSystem.status(path, followingLinks: true))
        if let status, status.kind == .file { return try zipLayer(ZipArchive(path: path)) }
        let input = try? FileDescriptor(rawValue: 0).status(path: name)
        guard isInput || (status != nil && status?.device == input?.device && status?.inode == input?.inode) else {
            guard let status else { throw AssetPackError(.notFound, "no such file or folder", path: path) }
            throw AssetPackError(.invalidArgument, "is a \(status.kind), not a file or folder: an archive is read by "
                                 + "offset; save it to a file first, or give - and pipe it in", path: path)
        }
        guard !CurrentProcess.isTerminal(0) else {
            throw AssetPackError(.invalidArgument, "is the terminal: pipe a zip into it (cat app.zip | assetpack …)", path: name)
        }
        let spooled = try SpooledFile(copying: FileDescriptorStream(descriptor: 0, name: name), name: name, in: nil)
        return try zipLayer(ZipArchive(source: spooled))
    }

    /// `source` itself when it holds no bundle manifest, else the ``PackedBundleSource`` view over it.
    /// - Throws: `.manifest` when the manifest is present but malformed; read errors.
    public static func view(of source: any AssetSource) throws(AssetPackError) -> any AssetSource {
        guard let manifest = try BundleManifest.read(from: source) else { return source }
        return try PackedBundleSource(base: source, checked: manifest)
    }
}
