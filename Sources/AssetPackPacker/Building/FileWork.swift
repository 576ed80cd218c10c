import AssetPack
import AssetPackSystem
import AssetPackZip

/// What became of one file of a folder build.
enum FileOutcome: Sendable {
    /// Written: its manifest entry, the bytes it takes in the bundle, and how it was packed (nil: copied).
    case done(BundleManifest.Entry, written: UInt64, packed: PackedFile?, reused: Bool)
    /// To be deflated in blocks into `archive` with every thread, by the thread that records the results.
    case packInBlocks(archive: AssetPath, entry: String, method: CompressionMethod)
    /// A pack archive written (or reused): its members' manifest entries and how each was packed, in
    /// member order, and the archive's bytes.
    case gathered([BundleManifest.Entry], packed: [PackedFile], written: UInt64, reused: Bool)
}

/// Copies or packs one file of a folder build; safe to call from several threads at once.
struct FileWork: Sendable {
    let root: String
    let options: BuildOptions
    let cache: IncrementalCache?
    let packer: EntryPacker
    let packWriter: PackWriter
    private let copiers = ObjectPool { () throws(AssetPackError) in FileCopier() }

    init(root: String, options: BuildOptions, cache: IncrementalCache?) {
        self.root = root
        self.options = options
        self.cache = cache
        self.packer = EntryPacker(rules: options.rules, followSymlinks: options.followSymlinks)
        self.packWriter = PackWriter(packer: packer)
    }

    /// Copies `planned`, or packs it on this thread (reusing the archive of its previous entry `old` when it
    /// can); a file to deflate in blocks is only probed and handed back.
    func prepare(_ planned: PlannedEntry, old: BundleManifest.Entry?) throws(AssetPackError) -> FileOutcome {
        let item = planned.item
        switch planned.action {
        case .directory, .gather:
            throw AssetPackError(.invalidArgument, "a folder or a pack member is not a file to write on its own", path: item.sourcePath)
        case .copy:
            let source = try SourceFile(item.sourcePath, expectedSize: item.size, follow: options.followSymlinks)
            let written = staged(item.path)
            let crc = try copiers.withObject { (copier) throws(AssetPackError) -> UInt32 in
                try copier.copy(source, to: root + "/" + written.string, permissions: item.isExecutable ? 0o755 : 0o644)
            }
            let stored = try published(written, sha256: source.sha256, suffix: "")
            let entry = ManifestWriter.fileEntry(item, crc32: crc, storage: .plain(stored.string),
                                                 sha256: source.sha256)
            return .done(entry, written: item.size, packed: nil, reused: false)
        case .pack(let name, let entry):
            let archive = staged(name)
            if let (previous, reusable) = cache?.reusableArchive(for: item, entry: entry, old: old) {
                try copiers.withObject { (copier) throws(AssetPackError) in try cache?.adopt(previous, as: root + "/" + archive.string, copier: copier) }
                return try done(item, archive: archive, entry: entry, packed: reusable, patches: keptPatches(of: old), reused: true)
            }
            let method = try packer.chooseMethod(for: item)
            if method == .deflate && options.rules.cutsIntoChunks(size: item.size) {
                return .packInBlocks(archive: archive, entry: entry, method: method)
            }
            return try pack(item, archive: archive, entry: entry, method: method, jobs: 1, old: old)
        }
    }

    /// Writes the pack archive `pack`, or adopts the previous bundle's when it holds exactly these files
    /// (whose previous entries are `olds`).
    func gather(_ pack: PackGroup, olds: [BundleManifest.Entry?]) throws(AssetPackError) -> FileOutcome {
        let staging = staged(pack.archive)
        var destination = root + "/" + staging.string
        var reused = false
        let packed: [PackedFile]
        if let (old, files) = cache?.reusablePack(for: pack.members, olds: olds) {
            try copiers.withObject { (copier) throws(AssetPackError) in try cache?.adopt(old, as: destination, copier: copier) }
            packed = files
            reused = true
        } else {
            packed = try packWriter.write(pack, to: destination)
        }
        let archive = try published(staging, sha256: nil, suffix: ".zip")
        destination = root + "/" + archive.string
        let entries = zip(pack.members, packed).map { (item, file) in
            Self.entry(item, archive: archive, entry: item.path.string, packed: file)
        }
        let written = try io(FileSystem.status(destination))?.size ?? 0
        return .gathered(entries, packed: packed, written: written, reused: reused)
    }

    /// Packs `item` into `archive` on up to `jobs` threads, with patches from its previous entry `old` when it changed
    /// (``PatchMaker``).
    func pack(_ item: SourceItem, archive: AssetPath, entry: String, method: CompressionMethod,
              jobs: Int, old: BundleManifest.Entry?) throws(AssetPackError) -> FileOutcome {
        let packed = try packer.pack(item, entry: entry, to: root + "/" + archive.string, method: method, jobs: jobs)
        var patches: BundleManifest.Storage.Patches?
        if options.writesPatches, let cache, let old {
            patches = try PatchMaker(root: root, previousRoot: cache.root, immutableNames: options.immutableNames).patches(for: item, packed: packed, old: old,
                                                                                  follow: options.followSymlinks)
        }
        return try done(item, archive: archive, entry: entry, packed: packed, patches: patches, reused: false)
    }

    /// The patches of the unchanged file whose previous entry is `old`, linked into this build (a client still on the
    /// version before gets them); nil when it has none or their file is gone.
    private func keptPatches(of old: BundleManifest.Entry?) throws(AssetPackError) -> BundleManifest.Storage.Patches? {
        guard options.writesPatches, let cache, let patches = old?.storage?.patches, let file = try? AssetPath(patches.file),
              file.string.hasPrefix(PatchMaker.folder + "/") || file.string.hasPrefix(ObjectNames.folder + "/"),
              (try? FileSystem.status(cache.root + "/" + file.string))??.kind == .file
        else { return nil }
        let destination = root + "/" + file.string
        if FileSystem.exists(destination) { return patches }
        _ = try io(FileSystem.makeDirectories(FileSystem.parentPath(destination)))
        try copiers.withObject { (copier) throws(AssetPackError) in try cache.adopt(cache.root + "/" + file.string, as: destination, copier: copier) }
        return patches
    }

    private func done(_ item: SourceItem, archive: AssetPath, entry: String, packed: PackedFile,
                      patches: BundleManifest.Storage.Patches?, reused: Bool) throws(AssetPackError) -> FileOutcome {
        let archive = try published(archive, sha256: nil, suffix: ".zip")
        let written = try io(FileSystem.status(root + "/" + archive.string))?.size ?? 0
        var made = Self.entry(item, archive: archive, entry: entry, packed: packed)
        made.storage?.patches = patches
        let patchBytes = patches.map { $0.runs.reduce(0) { $0 + $1[3] } } ?? 0
        return .done(made, written: written + patchBytes, packed: packed, reused: reused)
    }

    /// Where the file for bundle path `path` is written: there, or with ``BuildOptions/immutableNames`` under a
    /// temporary name in the objects folder until ``published(_:sha256:suffix:)`` gives it its content name (so
    /// the bundle holds no folder of the logical tree).
    private func staged(_ path: AssetPath) -> AssetPath { options.immutableNames ? ObjectNames.temporary() : path }

    /// Where the file written at `path` is stored: there, or with ``BuildOptions/immutableNames`` under its
    /// content name (``ObjectNames``), `sha256` being its SHA-256 when known.
    private func published(_ path: AssetPath, sha256: String?, suffix: String) throws(AssetPackError) -> AssetPath {
        options.immutableNames ? try ObjectNames.move(path, in: root, sha256: sha256, suffix: suffix) : path
    }

    /// The manifest entry of `item` packed as `entry` of `archive`: method, sizes, blocks, SHA-256s and data offset.
    private static func entry(_ item: SourceItem, archive: AssetPath, entry: String, packed: PackedFile) -> BundleManifest.Entry {
        let storage = BundleManifest.Storage.packed(archive: archive.string, entry: entry, method: packed.methodName,
                                                    compressedSize: packed.compressedSize, blocks: packed.blocks,
                                                    blockSHA256: packed.blockSHA256, dataOffset: packed.dataOffset,
                                                    chunking: packed.chunking)
        return ManifestWriter.fileEntry(item, crc32: packed.crc32, storage: storage, sha256: packed.sha256)
    }
}
