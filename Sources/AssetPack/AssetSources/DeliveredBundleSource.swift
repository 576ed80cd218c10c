import AssetPackZip

/// A packed bundle whose manifest file is here and whose stored files are fetched through a ``BundleDelivery``
/// (a bundle on a web server): the source ``AssetInstaller`` installs from when the bundle is remote.
///
/// The installer plans it exactly as a local bundle, from its manifest file, a window at a time as it reads
/// it (the same reader, planner, staging tree, journal, atomic switch and install record): the entries are
/// never all in memory, however large the bundle. Only the bytes of each file come from ``delivery``, and only
/// for the files it must write: a file the installed tree holds unchanged is linked, as in a local upgrade.
/// Each file is written into the staging tree as it arrives (a packed entry inflated on the way, never held in
/// memory) and checked before it counts: its size, CRC-32 and, when the manifest has one, SHA-256. A file the
/// manifest indexes in blocks (``BundleManifest/Storage/blockSHA256``) is written block by block, each block
/// checked against its SHA-256, recorded in the file's `BlockJournal` (so a killed install resumes at the
/// block) and taken from the installed copy of the file (``installedTree``) instead of the network when that
/// copy's bytes hash the same.
///
/// Check the manifest file against something you trust (`AssetPackRemote.ManifestTrust` does, as it spools
/// it) before making this source: everything written is checked against it. The manifest is read and checked
/// as a local bundle's is, its ``BundleManifest/identity`` against its entries and against ``identity``.
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

    /// The bundle whose manifest file is `manifest` and whose identity is `identity`, delivered by `delivery`.
    public init(manifest: any RandomAccessSource, identity: String, delivery: any BundleDelivery,
                installedTree: String? = nil) {
        (self.manifest, self.identity, self.delivery, self.installedTree) = (manifest, identity, delivery, installedTree)
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
