import AssetPackZip

/// A packed bundle whose manifest file is here and whose stored files are fetched through a ``BundleDelivery``
/// (a bundle on a web server): the source ``AssetInstaller`` installs from when the bundle is remote.
///
/// The installer plans it exactly as a local bundle, from its manifest; only the bytes of the files it must
/// write come from ``delivery``, each checked as it arrives (size, CRC-32 and, when listed, SHA-256). A file
/// indexed in blocks (``BundleManifest/Storage/blockSHA256``) is written block by block, resumable at the
/// block, each taken from local bytes instead of the network when they hash the same: the copy of the file in the
/// installed tree (``installedTree``) or in a seed folder (``seedFolders``), found at any offset when the blocks
/// are content-defined chunks (``BundleManifest/Storage/chunking``).
///
/// Check the manifest file against something you trust (`AssetPackRemote.ManifestTrust` does, as it spools
/// it) before making this source: everything written is checked against it.
///
/// As an ``AssetSource`` it holds the bundle's bookkeeping files only: ``open(_:)`` gives the manifest
/// (``BundleManifest/path``) and the identity (``BundleManifest/identityPath``) and throws
/// ``AssetPackError/Code/unsupported`` for any other file: files are reached through the installer, which
/// writes them to disk as they arrive.
public struct DeliveredBundleSource: SizedAssetSource {
    /// The bundle's manifest file, read front to back by the planner (possibly more than once).
    public let manifest: any RandomAccessSource
    /// The bundle's identity (its `assetpack-meta/identity` file): the installed tree's stamp; the manifest's
    /// own must be the same.
    public let identity: String
    /// Where the stored files come from.
    public let delivery: any BundleDelivery
    /// An installed tree (usually the installer's destination) whose files may lend the blocks of a
    /// block-indexed file that still hash the same; nil to fetch every block.
    public let installedTree: String?
    /// More folders laid out as the bundle's tree (an older copy, another app's assets) whose files at the same
    /// paths may lend blocks, after the installed tree; read, never written.
    public let seedFolders: [String]

    /// The bundle whose manifest file is `manifest` and whose identity is `identity`, delivered by `delivery`;
    /// blocks are taken from `installedTree` and `seedFolders` where they hold them.
    public init(manifest: any RandomAccessSource, identity: String, delivery: any BundleDelivery,
                installedTree: String? = nil, seedFolders: [String] = []) {
        (self.manifest, self.identity, self.delivery, self.installedTree) = (manifest, identity, delivery, installedTree)
        self.seedFolders = seedFolders
    }

    /// The local bytes that hold blocks of the file at `path` laid out as `layout` (``ChunkSeeds``).
    func seeds(for path: AssetPath, layout: DeliveredLayout, blocks: [DeliveredLayout.Block]) throws(AssetPackError) -> ChunkSeeds {
        try ChunkSeeds.find(for: path, layout: layout, blocks: blocks, in: (installedTree.map { [$0] } ?? []) + seedFolders,
                            hasher: delivery.makeHasher)
    }

    /// Drops the manifest's bytes when they are scratch space (``DiscardableManifest``): the installer calls it
    /// once the whole install is planned, before the tree is flushed.
    func discardManifest() {
        (manifest as? any DiscardableManifest)?.discard()
    }

    /// The bundle's name: the delivery's.
    public var name: String { delivery.name }

    /// ``AssetStorage/delivered(_:)``.
    public var storage: AssetStorage { .delivered(self) }

    /// The bookkeeping files here: `assetpack-meta` at the top, the manifest and the identity in it.
    public func list(_ path: AssetPath) throws(AssetPackError) -> [String] {
        if path.isRoot { return [BundleManifest.reservedDirectory] }
        guard path.string == BundleManifest.reservedDirectory else { throw unsupported(path) }
        return [BundleManifest.identityName, BundleManifest.manifestName].sorted()
    }

    /// The manifest file or the identity; throws ``AssetPackError/Code/unsupported`` for any other path.
    public func open(_ path: AssetPath) throws(AssetPackError) -> any ByteStream {
        switch path.string {
        case BundleManifest.path: RandomAccessStream(manifest)
        case BundleManifest.identityPath: MemoryStream(Array((identity + "\n").utf8))
        default: throw unsupported(path)
        }
    }

    /// The manifest's size (it sizes the planner's estimate); nil for anything else.
    public func size(of path: AssetPath) throws(AssetPackError) -> UInt64? {
        path.string == BundleManifest.path ? manifest.size : nil
    }

    private func unsupported(_ path: AssetPath) -> AssetPackError {
        AssetPackError(.unsupported, "a delivered bundle's files are read by the installer only", path: "\(name): \(path)")
    }
}
