import AssetPack
import AssetPackSystem
import AssetPackZip

/// Packs a source folder into a bundle folder: the output mirrors the source, files larger than the
/// threshold become `name.zip` archives holding one entry each, smaller files are copied byte for byte,
/// every folder (empty ones too) is created, and `assetpack-meta/manifest.json` describes it all.
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
        let plan = try BundlePlan.make(items, rules: options.rules)
        let cache = location.exists
            ? IncrementalCache.load(bundle: output, rules: options.rules, followSymlinks: options.followSymlinks) : nil
        let staged = try location.stageFolder()
        var build = FolderBuild(root: staged, options: options, cache: cache,
                                summary: BuildSummary(source: source, output: output, form: "folder"))
        do throws(AssetPackError) {
            var counter = ProgressCounter(progress, items: items)
            try build.write(plan, counter: &counter)
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

    /// Creates the planned folders (in walking order, parents first), then copies and packs the files on
    /// ``BuildOptions/jobs`` threads, recording each in plan order.
    mutating func write(_ plan: [PlannedEntry], counter: inout ProgressCounter) throws(AssetPackError) {
        for planned in plan where planned.action == .directory {
            try io(FileSystem.makeDirectory(root + "/" + planned.item.path.string))
            entries.append(.directory(planned.item.path.string))
            summary.directories += 1
        }
        let files = plan.filter { $0.action != .directory }
        let work = self.work
        try OrderedPipeline.run(count: files.count, jobs: options.jobs, window: 16 * options.jobs,
                                produce: { (index) throws(AssetPackError) -> FileOutcome in try work.prepare(files[index]) },
                                consume: { (index, outcome) throws(AssetPackError) in
            try record(files[index], outcome)
            counter.finished(files[index].item)
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
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double {
        let (whole, fraction) = components
        return Double(whole) + Double(fraction) / 1e18
    }
}
