import AssetPack
import AssetPackSystem
import AssetPackZip

extension Packer {
    /// Packs `source` into ONE zip, `output` (`assetpack build --archive OUT.zip`), replacing a previous bundle
    /// archive there: every folder becomes a directory entry (so empty ones survive), every file an entry at its
    /// path, and the manifest is added last as `assetpack-meta/manifest.json` and `assetpack-meta/identity`.
    ///
    /// The archive is itself the container, so the threshold plays no part: every file is deflated, as `zip`
    /// does, unless deflate does not pay (a small file is tried whole in memory, a larger one by its sample;
    /// a large one is not rewritten, as the writer cannot take an entry back). `.zip` files and level 0 store.
    /// There is no incremental reuse in this form. Deterministic like ``build(source:output:progress:)``,
    /// whatever the number of ``BuildOptions/jobs``, and written to a temporary sibling renamed into place.
    ///
    /// - Throws: `AssetPackError` as ``build(source:output:progress:)`` does.
    public func buildArchive(source: String, output: String, progress: ProgressHandler? = nil) throws(AssetPackError) -> BuildSummary {
        try run(source, into: output, form: .archive,
                progress: progress) { (_, staged, scanner, counter) throws(AssetPackError) in
            var summary = BuildSummary(source: source, output: output, form: "archive")
            var build = try ArchiveBuild(staged: staged, options: options, counter: counter)
            try scanner.scan(source) { (item, _) throws(AssetPackError) in try build.add(item, summary: &summary) }
            summary.identity = try build.finish(summary: &summary)
            summary.bytesOut = try io(FileSystem.status(staged))?.size ?? 0
            return summary
        }
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
