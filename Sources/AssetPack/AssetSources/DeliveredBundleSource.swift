import AssetPackZip

/// A packed bundle whose manifest is here and whose stored files are fetched through a ``BundleDelivery``
/// (a bundle on a web server): the source ``AssetInstaller`` installs from when the bundle is remote.
///
/// The installer plans it exactly as a local bundle, from its manifest (same planner, staging tree, journal,
/// atomic switch and install record); only the bytes of each file come from ``delivery``, and only for the
/// files it must write: a file the installed tree holds unchanged is linked, as in a local upgrade. Each file
/// is written into the staging tree as it arrives (a packed entry inflated on the way, never held in memory)
/// and checked before it counts: its size, CRC-32 and, when the manifest has one, SHA-256. A file the manifest
/// indexes in blocks (``BundleManifest/Storage/blockSHA256``) is written block by block, each block checked
/// against its SHA-256, recorded in the file's `BlockJournal` (so a killed install resumes at the block) and
/// taken from the installed copy of the file (``installedTree``) instead of the network when that copy's bytes
/// hash the same.
///
/// Read the manifest from a source you trust (e.g. verified with `AssetPackRemote.ManifestTrust`) before
/// making this source: everything written is checked against it.
///
/// ``list(_:)`` shows the manifest's tree; ``open(_:)`` is not offered (it throws
/// ``AssetPackError/Code/unsupported``): files are reached through the installer, which writes them to disk
/// as they arrive.
public struct DeliveredBundleSource: AssetSource {
    /// The bundle's manifest.
    public let manifest: BundleManifest
    /// Where the stored files come from.
    public let delivery: any BundleDelivery
    /// An installed tree (usually the installer's destination) whose files may lend the blocks of a
    /// block-indexed file that still hash the same; nil to fetch every block.
    public let installedTree: String?
    let tree: PackedBundleTree

    /// The bundle described by `manifest`, delivered by `delivery`.
    /// - Throws: `.manifest` when the manifest's identity does not match its entries or it cannot describe a tree.
    public init(manifest: BundleManifest, delivery: any BundleDelivery, installedTree: String? = nil) throws(AssetPackError) {
        let origin = "\(delivery.name): \(BundleManifest.path)"
        try manifest.checkIdentity(origin: origin)
        self.manifest = manifest
        self.delivery = delivery
        self.installedTree = installedTree
        self.tree = try PackedBundleTree(manifest, origin: origin)
    }

    /// The bundle's name: the delivery's.
    public var name: String { delivery.name }

    /// ``AssetStorage/delivered(_:)``.
    public var storage: AssetStorage { .delivered(self) }

    /// The logical children of the folder at `path`, sorted.
    public func list(_ path: AssetPath) throws(AssetPackError) -> [String] { tree.names(in: path) }

    /// Not offered: throws ``AssetPackError/Code/unsupported`` (or `.notFound` for a path the manifest lacks).
    public func open(_ path: AssetPath) throws(AssetPackError) -> any ByteStream {
        guard tree.file(path) != nil else { throw AssetPackError(.notFound, "no such file", path: "\(name): \(path)") }
        throw AssetPackError(.unsupported, "a delivered bundle's files are read by the installer only", path: "\(name): \(path)")
    }
}

/// One file of a ``DeliveredBundleSource``, as the planner names its origin.
struct DeliveredFile: Sendable {
    let bundle: DeliveredBundleSource
    let entry: BundleManifest.Entry
}
