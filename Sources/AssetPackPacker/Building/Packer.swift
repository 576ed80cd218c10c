import AssetPack
import AssetPackZip

/// Packs a source folder into a bundle folder: the output mirrors the source, files larger than the
/// threshold become `name.zip` archives holding one entry each, smaller files are copied byte for byte,
/// every folder (empty ones too) is created, and `.assetpack/manifest.json` describes it all.
///
/// ```swift
/// let summary = try Packer().build(source: "assets", output: "assets.bundle")
/// print(summary.text)
/// ```
///
/// The result is deterministic: the same tree — whatever its modification times or the order its folders
/// were created in — gives byte-identical bundles (sorted walk, fixed zip timestamps from
/// `SOURCE_DATE_EPOCH` or 1980-01-01, permissions normalized to 0644/0755). Modification times of the
/// written files themselves are left as the build makes them: they are not part of the bundle's bytes, and
/// a fixed old time would make copy steps that compare times skip a changed bundle.
///
/// The bundle is written to a temporary sibling and renamed into place (see ``OutputLocation``); an
/// existing bundle at the output lends its unchanged archives (see ``IncrementalCache``). Nothing is
/// fsynced: a build can always be run again, and the expander checks every CRC-32. An interrupted build
/// leaves at most a `.<name>.tmp-XXXXXX` sibling, never a complete-looking bundle.
///
/// Files are packed one after another; each is packed on its own (``EntryPacker``, names planned up front
/// by ``BundlePlan``), so a parallel build can hand them to workers without changing the result.
public struct Packer: Sendable {
    /// The options every build uses.
    public var options: BuildOptions

    /// A packer with `options`.
    public init(options: BuildOptions = BuildOptions()) {
        self.options = options
    }

    /// Packs `source` into the bundle folder `output`, replacing a previous bundle there.
    /// - Throws: ``AssetPackError`` naming the file: the source is missing or not a folder, the output is
    ///   inside the source (or the reverse) or is in the way, a symlink or special file, an unreadable
    ///   file, a reserved `.assetpack` at the top of the source, a failed write.
    public func build(source: String, output: String, progress: ProgressHandler? = nil) throws(AssetPackError) -> BuildSummary {
        let started = ContinuousClock.now
        try options.rules.validate()
        try SourceScanner.checkRoot(source)
        let location = try OutputLocation(output, form: .folder, source: source)
        let items = try SourceScanner(followSymlinks: options.followSymlinks, excluded: [location.resolved]).scan(source)
        let plan = try BundlePlan.make(items, rules: options.rules)
        let cache = location.exists
            ? IncrementalCache.load(bundle: output, rules: options.rules, followSymlinks: options.followSymlinks) : nil
        let staged = try location.stageFolder()
        var build = FolderBuild(root: staged, options: options, cache: cache,
                                summary: BuildSummary(source: source, output: output, form: "folder"))
        do throws(AssetPackError) {
            var counter = ProgressCounter(progress, items: items)
            for entry in plan {
                try build.write(entry)
                counter.finished(entry.item)
            }
            let manifest = ManifestWriter.manifest(build.entries, rules: options.rules)
            build.summary.bytesOut += try ManifestWriter.write(manifest, intoFolder: staged)
            build.summary.identity = manifest.identity
            try location.commit(staged)
        } catch {
            location.discard(staged)
            throw error
        }
        build.summary.seconds = started.duration(to: .now).seconds
        return build.summary
    }
}

/// The state of one folder build: the manifest entries and the summary so far.
struct FolderBuild {
    let root: String
    let options: BuildOptions
    let cache: IncrementalCache?
    let packer: EntryPacker
    let copier = FileCopier()
    var summary: BuildSummary
    var entries: [BundleManifest.Entry] = []

    init(root: String, options: BuildOptions, cache: IncrementalCache?, summary: BuildSummary) {
        self.root = root
        self.options = options
        self.cache = cache
        self.packer = EntryPacker(rules: options.rules, followSymlinks: options.followSymlinks)
        self.summary = summary
    }

    /// Creates, copies or packs one planned entry into the staged bundle.
    mutating func write(_ planned: PlannedEntry) throws(AssetPackError) {
        let item = planned.item
        switch planned.action {
        case .directory:
            try FileSystem.makeDirectory(root + "/" + item.path.string)
            entries.append(.directory(item.path.string))
            summary.directories += 1
        case .copy:
            let source = try SourceFile(item.sourcePath, expectedSize: item.size, follow: options.followSymlinks)
            let crc = try copier.copy(source, to: root + "/" + item.path.string, permissions: item.isExecutable ? 0o755 : 0o644)
            entries.append(ManifestWriter.fileEntry(item, crc32: crc, storage: .plain(item.path.string)))
            count(item, written: item.size)
        case .pack(let archive, let entry):
            try pack(item, archive: archive, entry: entry)
        }
    }

    private mutating func pack(_ item: SourceItem, archive: AssetPath, entry: String) throws(AssetPackError) {
        let destination = root + "/" + archive.string
        let packed: PackedFile
        if let (old, reusable) = cache?.reusableArchive(for: item, entry: entry) {
            try cache?.adopt(old, as: destination, copier: copier)
            packed = reusable
            summary.reused += 1
        } else {
            packed = try packer.pack(item, entry: entry, to: destination)
        }
        let storage = BundleManifest.Storage.packed(archive: archive.string, entry: entry, method: packed.methodName,
                                                    compressedSize: packed.compressedSize)
        entries.append(ManifestWriter.fileEntry(item, crc32: packed.crc32, storage: storage))
        summary.packed += 1
        if packed.method == .stored { summary.stored += 1 }
        count(item, written: try FileSystem.info(destination)?.size ?? 0)
    }

    private mutating func count(_ item: SourceItem, written: UInt64) {
        summary.files += 1
        summary.bytesIn += item.size
        summary.bytesOut += written
    }
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double {
        let (whole, fraction) = components
        return Double(whole) + Double(fraction) / 1e18
    }
}
