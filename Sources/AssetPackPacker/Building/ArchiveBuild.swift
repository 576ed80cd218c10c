import AssetPack
import AssetPackSystem
import AssetPackZip

extension Packer {
    /// Packs `source` into ONE zip, `output` (`assetpack build --archive OUT.zip`), replacing a previous bundle archive there: every folder becomes a
    /// directory entry (so empty ones survive), every file an entry at its path, and the manifest is added
    /// last as `assetpack-meta/manifest.json` and `assetpack-meta/identity`.
    ///
    /// The archive is itself the container, so nothing is nested and the threshold plays no part in how a
    /// file is compressed: every file is deflated, as `zip` does, unless deflate does not pay. A file of at
    /// most 1 MiB is read into memory and deflated there, and stored instead when that saved less than
    /// ``PackingRules/minimumSaving``; a larger one is stored when the `CompressibilityProbe` says its
    /// sample would not shrink enough, else deflated — in independent blocks on every core when it is larger
    /// than ``PackingRules/blockSize`` (`ParallelDeflater`). A large file is not rewritten when the whole
    /// file saved less than ``PackingRules/minimumSaving``: the writer cannot take an entry back, and such an
    /// entry costs at most that little. `.zip` files and level 0 store. The manifest records every file as
    /// `plain` with `file` = its entry name. There is no incremental reuse in this form.
    ///
    /// The tree streams through (`ArchiveBuild`): files are read and compressed on ``BuildOptions/jobs``
    /// threads, at most a few MiB ahead of the writer, and written in path order (`OrderedPipeline`), so the
    /// archive is byte-identical whatever the number of threads. Deterministic like ``build(source:output:progress:)``, and written
    /// to a temporary sibling file renamed into place.
    ///
    /// Within every deflated file, 64 KiB stretches that look incompressible are stored rather than deflated
    /// (`BlockDeflater/storesNoise`): deflate would spend as long on them as on text for no gain.
    ///
    /// - Throws: `AssetPackError` as ``build(source:output:progress:)`` does.
    public func buildArchive(source: String, output: String, progress: ProgressHandler? = nil) throws(AssetPackError) -> BuildSummary {
        try run(source, into: output, form: .archive, progress: progress, stage: { (location) throws(AssetPackError) in
            try location.stageArchive()
        }, fill: { (staged, scanner, counter) throws(AssetPackError) in
            var summary = BuildSummary(source: source, output: output, form: "archive")
            var build = try ArchiveBuild(staged: staged, options: options, counter: counter)
            try scanner.scan(source) { (item, _) throws(AssetPackError) in try build.add(item, summary: &summary) }
            summary.identity = try build.finish(summary: &summary)
            summary.bytesOut = try io(FileSystem.status(staged))?.size ?? 0
            return summary
        })
    }
}

/// One archive build as the walk hands its items over, in path order: a batch of items at a time is read
/// and compressed on ``BuildOptions/jobs`` threads, at most a few MiB ahead of the writer, and written in
/// path order (`OrderedPipeline`), each entry's manifest line spooled as it is written (`SpoolFile`).
struct ArchiveBuild {
    /// Items past which a batch is written.
    static let batchItems = 4096

    private let writer: ZipWriter
    private let work: ArchiveWork
    private let options: BuildOptions
    private var counter: ProgressCounter
    private let json: SpoolFile
    private var manifest: BundleManifest.Writer
    private var batch: [SourceItem] = []

    /// A build writing the zip `staged`.
    init(staged: String, options: BuildOptions, counter: ProgressCounter) throws(AssetPackError) {
        do { writer = try ZipWriter(path: staged, options: .deterministic(level: options.rules.level)) } catch {
            throw AssetPackError(error)
        }
        work = ArchiveWork(options: options)
        self.options = options
        self.counter = counter
        let json = SpoolFile(beside: staged)
        self.json = json
        manifest = BundleManifest.Writer { (bytes) throws(AssetPackError) in
            do throws(ZipError) { try json.append(bytes) } catch { throw AssetPackError(error) }
        }
    }

    /// Adds `item`; writes the batch when it is full.
    mutating func add(_ item: SourceItem, summary: inout BuildSummary) throws(AssetPackError) {
        batch.append(item)
        counter.found(item)
        if batch.count >= Self.batchItems { try write(summary: &summary) }
    }

    /// Writes what is left, then the manifest's entries, and finishes the zip; returns the identity.
    mutating func finish(summary: inout BuildSummary) throws(AssetPackError) -> String {
        try write(summary: &summary)
        let identity = try ManifestWriter.finish(&manifest, rules: options.rules)
        try ManifestWriter.add(json, identity: identity, to: writer)
        do { try writer.finish(sync: false) } catch { throw AssetPackError(error) }
        return identity
    }

    /// Reads and compresses the batch on every thread and writes it in path order.
    private mutating func write(summary: inout BuildSummary) throws(AssetPackError) {
        let items = batch
        batch = []
        let work = self.work
        try OrderedPipeline.run(count: items.count, jobs: options.jobs, window: work.window,
                                weights: items.map(work.weight), produce: { (index) throws(AssetPackError) -> PreparedEntry in
            try work.prepare(items[index])
        }, consume: { (index, prepared) throws(AssetPackError) in
            let entry = try work.write(items[index], prepared, to: writer, summary: &summary)
            try manifest.add(entry)
            counter.finished(entry)
        })
    }
}
