import AssetPack
import AssetPackZip

/// One item of the tree made ready for the writer by a worker thread.
enum PreparedEntry: Sendable {
    case directory
    /// A small file, read and compressed (or not) in memory: the bytes to write as they are.
    case inMemory(method: CompressionMethod, crc32: UInt32, sha256: String, data: [UInt8])
    /// A larger file, read by the writing thread itself with `method` (in blocks, on every thread, when deflated).
    case streamed(method: CompressionMethod)
}

/// Prepares and writes the entries of an archive build; ``prepare(_:)`` is safe to call from several threads.
struct ArchiveWork: Sendable {
    let options: BuildOptions
    private let tools: ObjectPool<InMemoryTools, AssetPackError>

    /// Files up to this size are read and compressed in memory by the worker threads.
    static let inMemoryLimit = 1 << 20

    init(options: BuildOptions) {
        self.options = options
        let level = max(1, options.rules.level)
        self.tools = ObjectPool { () throws(AssetPackError) -> InMemoryTools in
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
        let stores = options.rules.level == 0 || item.path.isZipArchiveName
        guard item.size <= UInt64(Self.inMemoryLimit) else {
            if stores { return .streamed(method: .stored) }
            let packer = EntryPacker(rules: options.rules, followSymlinks: options.followSymlinks)
            return .streamed(method: try packer.chooseMethod(for: item))
        }
        return try tools.withObject { (tools) throws(AssetPackError) -> PreparedEntry in
            let contents = UnsafeRawBufferPointer(rebasing: tools.input[0..<Int(item.size)])
            let source = try SourceFile(item.sourcePath, expectedSize: item.size, follow: options.followSymlinks)
            try source.readWhole(into: tools.input)
            var crc = CRC32()
            crc.update(contents)
            let sha256 = source.sha256
            guard !stores, !contents.isEmpty else {
                return .inMemory(method: .stored, crc32: crc.value, sha256: sha256, data: Array(contents))
            }
            let count: Int
            do throws(ZipError) {
                count = try tools.deflater.deflate(contents, into: tools.output)
            } catch {
                throw AssetPackError(error, path: item.sourcePath)
            }
            guard PackingRules.saves(UInt64(count), of: item.size, atLeast: options.rules.minimumSaving) else {
                return .inMemory(method: .stored, crc32: crc.value, sha256: sha256, data: Array(contents))
            }
            return .inMemory(method: .deflate, crc32: crc.value, sha256: sha256,
                             data: Array(UnsafeRawBufferPointer(rebasing: tools.output[0..<count])))
        }
    }

    /// Writes a prepared item as the next entry; returns its manifest entry.
    func write(_ item: SourceItem, _ prepared: PreparedEntry, to writer: ZipWriter,
               summary: inout BuildSummary) throws(AssetPackError) -> BundleManifest.Entry {
        let name = item.path.string
        let permissions: UInt32 = item.isExecutable ? 0o755 : 0o644
        let written: WrittenEntry, sha256: String
        switch prepared {
        case .directory:
            do { try writer.addDirectory(name) } catch { throw AssetPackError(error) }
            summary.directories += 1
            return .directory(name)
        case .inMemory(let method, let crc, let digest, let data):
            sha256 = digest
            do {
                written = try writer.addPrecompressed(name, method: method, crc32: crc, uncompressedSize: item.size,
                                                      compressedData: data, permissions: permissions)
            } catch {
                throw AssetPackError(error)
            }
        case .streamed(.deflate):
            (written, sha256) = try FileDigest.ofFile(item.sourcePath, size: item.size,
                                                      follow: options.followSymlinks) { () throws(AssetPackError) in
                try EntryPacker.addInBlocks(item, as: name, to: writer, level: options.rules.level, lengths: nil, jobs: options.jobs,
                                            follow: options.followSymlinks)
            }
        case .streamed(let method):
            let source = try SourceFile(item.sourcePath, expectedSize: item.size, follow: options.followSymlinks)
            written = try EntryPacker.addStreaming(item, as: name, method: method, to: writer, from: source)
            sha256 = source.sha256
        }
        summary.files += 1
        summary.bytesIn += item.size
        if options.rules.packs(item.path, size: item.size) {
            summary.packed += 1
            if written.method == .stored { summary.stored += 1 }
        }
        return ManifestWriter.fileEntry(item, crc32: written.crc32, storage: .plain(name), sha256: sha256)
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
