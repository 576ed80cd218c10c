/// Makes the ``ExpansionItem`` of each manifest entry of a bundle: its path, size, CRC-32, mode and SHA-256,
/// and where its bytes are (a plain file of the bundle, an entry of a pack archive, or a delivered file),
/// as ``BundleManifest/Entry/location(origin:)`` reads the manifest, for ``ManifestPlanner``.
struct ManifestItems {
    /// The bundle as stored.
    let source: ResolvedSource
    let options: ExpansionOptions
    /// Whether the bundle's files are delivered (a source of ``AssetStorage/delivered(_:)``): every file's
    /// origin is then ``ExpansionItem/Origin/delivered(_:)``.
    let isDelivered: Bool
    /// The pack archives named so far, and the last one (consecutive files of a pack archive name the same
    /// archive: it is reused without parsing its path or looking it up again).
    private var archives: [AssetPath: ArchiveHandle] = [:]
    private var last: (file: String, handle: ArchiveHandle)?
    /// The bundle's manifest file, as errors about it name it: below the bundle's folder (or address).
    let manifestFile: String

    /// The items of the bundle `source` (stored, or delivered).
    init(source: ResolvedSource, options: ExpansionOptions) {
        self.source = source
        self.options = options
        if case .delivered = source.access.storage { isDelivered = true } else { isDelivered = false }
        self.manifestFile = source.access.fileName + "/" + BundleManifest.path
    }

    /// The item of `entry`.
    mutating func item(for entry: BundleManifest.Entry) throws(AssetPackError) -> ExpansionItem {
        let path = try AssetPath(entry.path)
        switch entry.kind {
        case .directory:
            return .directory(path, permissions: PermissionPolicy.directory(entry.mode))
        case .file:
            let from = try origin(of: entry)
            // Blocks to inflate in parallel: those of a deflated entry (a stored one's chunks are copied as they are).
            let deflated = entry.storage?.form == .packed && entry.storage?.method == "deflate"
            let blocks = deflated ? entry.storage?.blocks.map { BlockLayout(pairs: $0, jobs: options.jobs) } : nil
            return ExpansionItem(path: path, kind: .file, size: entry.size ?? 0, crc32: entry.crc32,
                                 permissions: PermissionPolicy.file(entry.mode), origin: from, blocks: blocks,
                                 digest: try digest(entry))
        }
    }

    /// The entry's SHA-256 as its bytes (checked as 64 lowercase hex digits with the manifest's entries).
    private func digest(_ entry: BundleManifest.Entry) throws(AssetPackError) -> SHA256Digest? {
        guard let hex = entry.sha256 else { return nil }
        guard let digest = SHA256Digest(hex: hex) else {
            throw AssetPackError(.manifest, "manifest entry \"\(entry.path)\" has a SHA-256 that is not 64 lowercase hex digits",
                                 path: manifestFile)
        }
        return digest
    }

    /// Where `entry`'s bytes are: a delivered file, or in this bundle.
    private mutating func origin(of entry: BundleManifest.Entry) throws(AssetPackError) -> ExpansionItem.Origin {
        if isDelivered {
            _ = try entry.location(origin: manifestFile)  // checks the storage as for a local bundle
            return .delivered(try DeliveredLayout(entry, origin: manifestFile))
        }
        if let last, let storage = entry.storage, storage.form == .packed, storage.file == last.file,
           let inner = storage.entry, !inner.isEmpty {
            return .zipEntry(last.handle, entryName: inner)
        }
        switch try entry.location(origin: manifestFile) {
        case .plain(let file):
            return source.origin(of: file)
        case .packed(let archive, let name):
            let handle: ArchiveHandle
            if let known = archives[archive] {
                handle = known
            } else {
                handle = ArchiveHandle(in: source.access, at: archive, limits: options.limits, spoolFolder: options.spoolFolder)
                archives[archive] = handle
            }
            last = (entry.storage?.file ?? "", handle)
            return .zipEntry(handle, entryName: name)
        }
    }
}
