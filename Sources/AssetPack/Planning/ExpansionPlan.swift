/// Everything an expansion will create, known before the first byte is written: the items in path order
/// (a directory before what it holds), totals for progress and the free-space check, and the identity the
/// installer records once the tree is complete.
public struct ExpansionPlan: Sendable {
    /// A name for the source, for messages.
    public let sourceName: String
    /// Every directory, file and symlink, sorted by path (``AssetPath`` order); each directory once.
    public let items: [ExpansionItem]
    /// The content identity of the logical tree: the manifest's identity, or for a tree without a
    /// manifest a SHA-256 over paths, kinds, sizes, CRC-32s (when an archive states them) and modes.
    public let identity: String
    /// True when the plan comes from the bundle's manifest, false when from a walk of the source.
    public let usesManifest: Bool
    /// What the installer records: a bundle's identity, or a walked tree's plus the options that change the result.
    let stamp: String
    /// The source ``ExpansionItem/Origin/stream(_:)`` origins are opened from: the source planned, or the
    /// bundle itself under a packed-bundle view.
    let source: any AssetSource
    /// The folder on disk ``ExpansionItem/Origin/localFile(_:)`` origins are below, when the source is one.
    let folder: String?

    /// A plan of `items`, whose origins were named by `reading`.
    init(sourceName: String, items: [ExpansionItem], identity: String, usesManifest: Bool, stamp: String,
         reading: ResolvedSource) {
        self.sourceName = sourceName
        self.items = items
        self.identity = identity
        self.usesManifest = usesManifest
        self.stamp = stamp
        self.source = reading.source
        self.folder = reading.folder
        var files = 0, bytes: UInt64 = 0
        for index in items.indices {  // by index: no item is copied (each copy retains its parts)
            if items[index].kind != .directory { files += 1 }
            bytes += items[index].size
        }
        self.fileCount = files
        self.totalBytes = bytes
    }

    /// Files and symlinks to create.
    public let fileCount: Int

    /// Bytes of all files.
    public let totalBytes: UInt64

    /// The stamp a walked tree gets.
    static func treeStamp(_ identity: String, options: ExpansionOptions) -> String {
        "assetpack-1 tree \(identity) \(options.recordTag)"
    }
}
