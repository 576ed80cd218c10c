import AssetPackZip

/// The logical view of a packed bundle: the app's original asset tree, as the manifest at
/// ``BundleManifest/path`` of `base` describes it, whatever way each file is stored.
///
/// - ``list(_:)`` gives the logical children: a file packed as `big.bin.zip` appears as `big.bin`, and the
///   bookkeeping folder (`assetpack-meta`) is hidden.
/// - ``open(_:)`` of a packed file opens its archive — with random access when `base` can hand the archive
///   out that way (a file on disk, a stored entry of an APK), else forward-only with `ZipStreamReader`
///   over `base.open` — and returns the inner entry's stream. Every stream, plain or packed, is wrapped in
///   a `VerifyingStream` that checks the manifest's size and CRC-32 before it reports the end.
/// - A file the manifest lists but the bundle lacks is a `.manifest` error, never "not found" (which the
///   walker would take for an empty folder).
///
/// Its ``storage`` names the bundle and the manifest, never a folder (reading the files from disk would
/// bypass verification). ``AssetSources/view(of:)`` gives this view only when a manifest is present.
public struct PackedBundleSource: AssetSource, SizedAssetSource, RandomAccessAssetSource {
    /// The bundle as stored (a folder, an archive, an APK's `assets`).
    public let base: any AssetSource
    /// The bundle's manifest.
    public let manifest: BundleManifest
    let tree: PackedBundleTree
    /// `base`, resolved once.
    let baseAccess: SourceAccess
    /// Pack archives opened so far.
    let packArchives = PackArchiveCache()

    /// The view of `base`, reading its manifest with ``BundleManifest/read(from:)``.
    /// - Throws: `.notFound` when `base` has no manifest; `.manifest` when it is malformed.
    public init(base: any AssetSource) throws(AssetPackError) {
        guard let manifest = try BundleManifest.read(from: base) else {
            throw AssetPackError(.notFound, "no bundle manifest at \(BundleManifest.path)", path: base.name)
        }
        try self.init(base: base, checked: manifest)
    }

    /// The view of `base` described by `manifest` (already read).
    /// - Throws: `.manifest` when the manifest's identity does not match its entries, or it cannot
    ///   describe a tree.
    public init(base: any AssetSource, manifest: BundleManifest) throws(AssetPackError) {
        try manifest.checkIdentity(origin: BundleManifest.origin(in: base))
        try self.init(base: base, checked: manifest)
    }

    /// The view of `base` described by `manifest`, read and checked with ``BundleManifest/read(from:)``.
    init(base: any AssetSource, checked manifest: BundleManifest) throws(AssetPackError) {
        self.base = base
        self.manifest = manifest
        self.baseAccess = SourceAccess(base)
        self.tree = try PackedBundleTree(manifest, origin: BundleManifest.origin(in: base))
    }

    /// The bundle and its manifest: ``AssetStorage/packedBundle(base:manifest:)``.
    public var storage: AssetStorage { .packedBundle(base: base, manifest: manifest) }

    /// The bundle's name.
    public var name: String { base.name }

    /// The logical children of the folder at `path`, sorted; `[]` for a file or a missing path.
    public func list(_ path: AssetPath) throws(AssetPackError) -> [String] { tree.names(in: path) }

    /// Opens the logical file at `path`; the stream verifies the manifest's size and CRC-32.
    /// - Throws: `.notFound` for a folder or a path not in the manifest; `.manifest` when the bundle lacks
    ///   the file's storage; read and archive errors.
    public func open(_ path: AssetPath) throws(AssetPackError) -> any ByteStream {
        let file = try requireFile(path)
        let raw: any ByteStream = switch file.location {
        case .plain(let stored): try openStored(stored, for: path)
        case .packed(let archive, let entry): try openPacked(entry, in: archive, for: path)
        }
        return VerifyingStream(raw, expectedSize: file.size, expectedCRC: file.crc32, name: shown(path))
    }

    /// The logical size the manifest records for the file at `path`; nil for a folder or a missing path.
    public func size(of path: AssetPath) throws(AssetPackError) -> UInt64? { tree.file(path)?.size }

    /// Random access to the file at `path` when `base` offers it: a plain file as `base` gives it, a file
    /// packed stored as a byte range of its archive; nil otherwise (deflated, or `base` is forward-only).
    /// A packed file's bytes are checked against its entry's CRC-32 first; only the size is compared with the
    /// manifest's.
    /// - Throws: as ``open(_:)``; `.verification` when the size differs from the manifest's.
    public func randomAccess(_ path: AssetPath) throws(AssetPackError) -> (any RandomAccessSource)? {
        let file = try requireFile(path)
        guard let bytes = try randomAccessBytes(of: file, for: path) else { return nil }
        guard bytes.size == file.size else {
            throw AssetPackError(.verification, "is \(bytes.size) bytes, the manifest records \(file.size)", path: shown(path))
        }
        return bytes
    }

    /// `path` for messages: the bundle's name and the logical path.
    func shown(_ path: AssetPath) -> String { "\(base.name): \(path)" }

    private func requireFile(_ path: AssetPath) throws(AssetPackError) -> PackedBundleTree.File {
        guard let file = tree.file(path) else {
            let what = tree.isDirectory(path) ? "is a directory, not a file" : "no such file"
            throw AssetPackError(.notFound, what, path: shown(path))
        }
        return file
    }
}
