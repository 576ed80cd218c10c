import AssetPack
import AssetPackZip

/// Packs a source folder into ONE zip (`assetpack build --archive OUT.zip`): every folder becomes a
/// directory entry (so empty ones survive), every file an entry at its path, and the manifest is added
/// last as `.assetpack/manifest.json` and `.assetpack/identity`.
///
/// The archive is itself the container, so nothing is nested and the threshold plays no part in how a
/// file is compressed: every file is deflated, as `zip` does, unless deflate does not pay. A file of at
/// most 1 MiB is read into memory and deflated there, and stored instead when that saved less than
/// ``PackingRules/minimumSaving``; a larger one is stored when the ``CompressibilityProbe`` says its
/// sample would not shrink enough, else deflated — in independent blocks on every core when it is larger
/// than ``PackingRules/blockSize`` (``ParallelDeflater``). A large file is not rewritten when the whole
/// file saved less than ``PackingRules/minimumSaving``: the writer cannot take an entry back, and such an
/// entry costs at most that little. `.zip` files and level 0 store. The manifest records every file as
/// `plain` with `file` = its entry name. There is no incremental reuse in this form.
///
/// Files are read and compressed on ``BuildOptions/jobs`` threads, at most a few MiB ahead of the
/// writer, and written in walking order (``OrderedPipeline``), so the archive is byte-identical whatever
/// the number of threads. Deterministic like ``Packer``, and written to a temporary sibling file renamed
/// into place.
///
/// Within every deflated file, 64 KiB stretches that look incompressible are stored rather than deflated
/// (``BlockDeflater/storesNoise``): deflate would spend as long on them as on text for no gain.
public struct ArchivePacker: Sendable {
    /// The options every build uses.
    public var options: BuildOptions

    /// An archive packer with `options`.
    public init(options: BuildOptions = BuildOptions()) {
        self.options = options
    }

    /// Packs `source` into the zip `output`, replacing a previous bundle archive there.
    /// - Throws: ``AssetPackError`` as ``Packer/build(source:output:progress:)`` does.
    public func build(source: String, output: String, progress: ProgressHandler? = nil) throws(AssetPackError) -> BuildSummary {
        let started = ContinuousClock.now
        try options.rules.validate()
        try SourceScanner.checkRoot(source)
        let location = try OutputLocation(output, form: .archive, source: source)
        let items = try SourceScanner(followSymlinks: options.followSymlinks, excluded: [location.resolved]).scan(source)
        let staged = try location.stageArchive()
        var summary = BuildSummary(source: source, output: output, form: "archive")
        do throws(AssetPackError) {
            let writer: ZipWriter
            do { writer = try ZipWriter(path: staged, options: .deterministic(level: options.rules.level)) } catch { throw AssetPackError(error) }
            var counter = ProgressCounter(progress, items: items)
            var entries: [BundleManifest.Entry] = []
            let work = ArchiveWork(options: options)
            try OrderedPipeline.run(count: items.count, jobs: options.jobs, window: work.window, weights: items.map(work.weight),
                                    produce: { (index) throws(AssetPackError) -> PreparedEntry in try work.prepare(items[index]) },
                                    consume: { (index, prepared) throws(AssetPackError) in
                entries.append(try work.write(items[index], prepared, to: writer, summary: &summary))
                counter.finished(items[index])
            })
            let manifest = ManifestWriter.manifest(entries, rules: options.rules)
            try ManifestWriter.add(manifest, to: writer)
            do { try writer.finish(sync: false) } catch { throw AssetPackError(error) }
            summary.identity = manifest.identity
            summary.bytesOut = try FileSystem.info(staged)?.size ?? 0
            try location.commit(staged)
        } catch {
            location.discard(staged)
            throw error
        }
        summary.seconds = started.duration(to: .now).seconds
        return summary
    }
}

/// One item of the tree made ready for the writer by a worker thread.
enum PreparedEntry: Sendable {
    case directory
    /// A small file, read and compressed (or not) in memory: the bytes to write as they are.
    case inMemory(method: CompressionMethod, crc32: UInt32, data: [UInt8])
    /// A larger file, read by the writing thread itself with `method` (in blocks, on every thread, when deflated).
    case streamed(method: CompressionMethod)
}

/// Prepares and writes the entries of an archive build; ``prepare(_:)`` is safe to call from several threads.
struct ArchiveWork: Sendable {
    let options: BuildOptions
    private let tools: Pool<InMemoryTools>

    /// Files up to this size are read and compressed in memory by the worker threads.
    static let inMemoryLimit = 1 << 20

    init(options: BuildOptions) {
        self.options = options
        let level = max(1, options.rules.level)
        self.tools = Pool { () throws(AssetPackError) -> InMemoryTools in
            do throws(ZipError) { return try InMemoryTools(level: level) } catch { throw AssetPackError(error) }
        }
    }

    /// How many bytes of prepared entries may wait for the writer.
    var window: Int { 2 * max(2, options.jobs) * Self.inMemoryLimit }

    /// What an item holds while it waits: its bytes (at least a little, so thousands of tiny files do not pile up).
    func weight(_ item: SourceItem) -> Int {
        item.kind == .file && item.size <= UInt64(Self.inMemoryLimit) ? max(Int(item.size), 4096) : 4096
    }

    /// Reads and compresses a small file, or chooses the method of a larger one.
    func prepare(_ item: SourceItem) throws(AssetPackError) -> PreparedEntry {
        guard item.kind == .file else { return .directory }
        let stores = options.rules.level == 0 || PackingRules.isZip(item.path.name)
        guard item.size <= UInt64(Self.inMemoryLimit) else {
            if stores { return .streamed(method: .stored) }
            let packer = EntryPacker(rules: options.rules, followSymlinks: options.followSymlinks)
            return .streamed(method: try packer.chooseMethod(for: item))
        }
        return try tools.with { (tools) throws(AssetPackError) -> PreparedEntry in
            let contents = UnsafeRawBufferPointer(rebasing: tools.input[0..<Int(item.size)])
            try read(item, into: tools.input)
            var crc = CRC32()
            crc.update(contents)
            guard !stores, !contents.isEmpty else { return .inMemory(method: .stored, crc32: crc.value, data: Array(contents)) }
            let count: Int
            do throws(ZipError) {
                count = try tools.deflater.deflate(contents, into: tools.output)
            } catch {
                throw AssetPackError(error, path: item.sourcePath)
            }
            guard PackingRules.saves(UInt64(count), of: item.size, atLeast: options.rules.minimumSaving) else {
                return .inMemory(method: .stored, crc32: crc.value, data: Array(contents))
            }
            return .inMemory(method: .deflate, crc32: crc.value, data: Array(UnsafeRawBufferPointer(rebasing: tools.output[0..<count])))
        }
    }

    /// Reads the whole file into the start of `buffer`; it must still have the size the scan saw.
    private func read(_ item: SourceItem, into buffer: UnsafeMutableRawBufferPointer) throws(AssetPackError) {
        let source = try SourceFile(item.sourcePath, expectedSize: item.size, follow: options.followSymlinks)
        do throws(ZipError) {
            var filled = 0
            while filled < Int(item.size) {
                let got = try source.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled..<Int(item.size)]))
                if got == 0 { break }
                filled += got
            }
            // One more read must find the end: a file that grew is as changed as one that shrank.
            var extra: UInt8 = 0
            _ = try withUnsafeMutableBytes(of: &extra) { (byte) throws(ZipError) -> Int in try source.read(into: byte) }
        } catch {
            throw source.explain(error)
        }
        try source.checkComplete()
    }

    /// Writes a prepared item as the next entry; returns its manifest entry.
    func write(_ item: SourceItem, _ prepared: PreparedEntry, to writer: ZipWriter,
               summary: inout BuildSummary) throws(AssetPackError) -> BundleManifest.Entry {
        let name = item.path.string
        let permissions: UInt32 = item.isExecutable ? 0o755 : 0o644
        let written: WrittenEntry
        switch prepared {
        case .directory:
            do { try writer.addDirectory(name) } catch { throw AssetPackError(error) }
            summary.directories += 1
            return .directory(name)
        case .inMemory(let method, let crc, let data):
            let result = data.withUnsafeBytes { raw in
                Result { () throws(ZipError) -> WrittenEntry in
                    try writer.addPrecompressed(name, method: method, crc32: crc, uncompressedSize: item.size,
                                                compressedData: raw, permissions: permissions)
                }
            }
            do { written = try result.get() } catch { throw AssetPackError(error) }
        case .streamed(.deflate):
            written = try EntryPacker.addInBlocks(item, as: name, to: writer, rules: options.rules, jobs: options.jobs,
                                                  follow: options.followSymlinks)
        case .streamed(let method):
            written = try EntryPacker.addStreaming(item, as: name, method: method, to: writer, follow: options.followSymlinks)
        }
        summary.files += 1
        summary.bytesIn += item.size
        if options.rules.packs(item.path, size: item.size) {
            summary.packed += 1
            if written.method == .stored { summary.stored += 1 }
        }
        return ManifestWriter.fileEntry(item, crc32: written.crc32, storage: .plain(name))
    }
}

/// One thread's tools for files compressed in memory: a compressor, room for a file, and room for its
/// compressed form; reused from file to file.
final class InMemoryTools {
    let deflater: BlockDeflater
    let input: UnsafeMutableRawBufferPointer
    let output: UnsafeMutableRawBufferPointer

    init(level: Int) throws(ZipError) {
        deflater = try BlockDeflater(level: level)
        input = .allocate(byteCount: ArchiveWork.inMemoryLimit, alignment: 16)
        output = .allocate(byteCount: BlockDeflater.capacity(for: ArchiveWork.inMemoryLimit), alignment: 16)
    }

    deinit {
        input.deallocate()
        output.deallocate()
    }
}
