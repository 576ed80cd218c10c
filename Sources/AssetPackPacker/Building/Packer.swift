import AssetPack
import AssetPackSystem
import AssetPackZip

/// Packs a source folder into a bundle folder: the output mirrors the source, files larger than the
/// threshold become `name.zip` archives holding one entry each, small files (64 KiB or less by default,
/// ``PackingRules/packMemberLimit``) are gathered into pack archives of about 1 MiB in
/// `assetpack-meta/packs/` (see `PackGrouping`), the others are copied byte for byte, every folder (empty
/// ones too) is created, and `assetpack-meta/manifest.json` describes it all.
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
/// The bundle is written to a temporary sibling and renamed into place (see `OutputLocation`); an
/// existing bundle at the output lends its unchanged archives (see `IncrementalCache`). Nothing is
/// fsynced: a build can always be run again, and the expander checks every CRC-32. An interrupted build
/// leaves at most a `.<name>.tmp-XXXXXX` sibling, never a complete-looking bundle.
///
/// Files are packed in parallel, on ``BuildOptions/jobs`` threads: every file is packed on its own
/// (`EntryPacker`, names planned up front by `BundlePlan`), so the result does not depend on the order
/// or the number of threads. A file deflated in blocks (larger than ``PackingRules/blockSize``) is packed
/// with all the threads at once (`ParallelDeflater`), and the manifest records its block index.
public struct Packer: Sendable {
    /// The options every build uses.
    public var options: BuildOptions

    /// A packer with `options`.
    public init(options: BuildOptions = BuildOptions()) {
        self.options = options
    }

    /// Packs `source` into the bundle folder `output`, replacing a previous bundle there.
    /// - Throws: `AssetPackError` naming the file: the source is missing or not a folder, the output is
    ///   inside the source (or the reverse) or is in the way, a symlink or special file, an unreadable
    ///   file, a bookkeeping folder's name (`assetpack-meta`, `.assetpack`) at the top of the source, a failed write.
    public func build(source: String, output: String, progress: ProgressHandler? = nil) throws(AssetPackError) -> BuildSummary {
        let started = ContinuousClock.now
        let (location, items) = try options.scan(source, into: output, form: .folder)
        let layout = try BundlePlan.layout(items, rules: options.rules)
        let cache = location.exists
            ? IncrementalCache.load(bundle: output, rules: options.rules, followSymlinks: options.followSymlinks) : nil
        let staged = try location.stageFolder()
        var build = FolderBuild(root: staged, options: options, cache: cache,
                                summary: BuildSummary(source: source, output: output, form: "folder"))
        do throws(AssetPackError) {
            var counter = ProgressCounter(progress, items: items)
            try build.write(layout, counter: &counter)
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
    let work: FileWork
    var summary: BuildSummary
    var entries: [BundleManifest.Entry] = []

    init(root: String, options: BuildOptions, cache: IncrementalCache?, summary: BuildSummary) {
        self.root = root
        self.options = options
        self.work = FileWork(root: root, options: options, cache: cache)
        self.summary = summary
    }

    /// Creates the planned folders (in walking order, parents first), then copies and packs the files and
    /// writes the pack archives on ``BuildOptions/jobs`` threads, recording each in walking order.
    mutating func write(_ layout: BundleLayout, counter: inout ProgressCounter) throws(AssetPackError) {
        for planned in layout.entries where planned.action == .directory {
            try io(FileSystem.makeDirectory(root + "/" + planned.item.path.string))
            entries.append(.directory(planned.item.path.string))
            summary.directories += 1
        }
        if !layout.packs.isEmpty {
            try io(FileSystem.makeDirectory(root + "/" + BundleManifest.reservedDirectory))
            try io(FileSystem.makeDirectory(root + "/" + PackGrouping.folder))
        }
        let units = BuildUnit.units(of: layout)
        let work = self.work
        try OrderedPipeline.run(count: units.count, jobs: options.jobs, window: 16 * options.jobs,
                                produce: { (index) throws(AssetPackError) -> FileOutcome in
            switch units[index] {
            case .file(let planned): try work.prepare(planned)
            case .pack(let pack): try work.gather(layout.packs[pack])
            }
        }, consume: { (index, outcome) throws(AssetPackError) in
            switch units[index] {
            case .file(let planned):
                try record(planned, outcome)
                counter.finished(planned.item)
            case .pack(let pack):
                record(layout.packs[pack], outcome)
                for item in layout.packs[pack].members { counter.finished(item) }
            }
        })
    }

    /// Adds what became of one file to the manifest and the summary; packs it first when that was left to
    /// this thread (a file deflated in blocks, with every thread).
    private mutating func record(_ planned: PlannedEntry, _ outcome: FileOutcome) throws(AssetPackError) {
        var outcome = outcome
        if case .packInBlocks(let archive, let entry, let method) = outcome {
            outcome = try work.pack(planned.item, archive: archive, entry: entry, method: method, jobs: options.jobs)
        }
        guard case .done(let entry, let written, let packed, let reused) = outcome else { return }
        entries.append(entry)
        summary.files += 1
        summary.bytesIn += planned.item.size
        summary.bytesOut += written
        if let packed {
            summary.packed += 1
            if packed.method == .stored { summary.stored += 1 }
            if reused { summary.reused += 1 }
        }
    }

    /// Adds the members of a pack archive to the manifest and the summary.
    private mutating func record(_ pack: PackGroup, _ outcome: FileOutcome) {
        guard case .gathered(let packEntries, let packed, let written, let reused) = outcome else { return }
        entries += packEntries
        summary.files += packEntries.count
        summary.bytesIn += pack.size
        summary.bytesOut += written
        summary.packed += packed.count
        summary.stored += packed.count { $0.method == .stored }
        if reused { summary.reused += packed.count }
    }
}

/// One unit of a folder build's parallel work: a file copied or packed on its own, or a pack archive
/// (by its number in ``BundleLayout/packs``), in walking order (a pack where its first member is).
enum BuildUnit: Sendable {
    case file(PlannedEntry)
    case pack(Int)

    /// The units of `layout`, in walking order.
    static func units(of layout: BundleLayout) -> [BuildUnit] {
        var units: [BuildUnit] = []
        var started = Set<Int>()
        for planned in layout.entries {
            switch planned.action {
            case .directory: continue
            case .copy, .pack: units.append(.file(planned))
            case .gather(let pack): if started.insert(pack).inserted { units.append(.pack(pack)) }
            }
        }
        return units
    }
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double {
        let (whole, fraction) = components
        return Double(whole) + Double(fraction) / 1e18
    }
}
