import AssetPack
import AssetPackSystem
import AssetPackZip

/// How one file ended up in its archive.
struct PackedFile: Sendable, Equatable {
    var crc32: UInt32
    var size: UInt64
    var method: CompressionMethod
    var compressedSize: UInt64
    /// Where the file's chunks start, as the manifest records them (`BundleManifest.Storage.blocks`): for a
    /// file cut into content-defined chunks (``PackingRules/cutsIntoChunks(size:)``), else nil.
    var blocks: [[UInt64]]? = nil
    /// SHA-256 of the file.
    var sha256: String? = nil
    /// SHA-256 of each chunk, for a file with ``blocks``.
    var blockSHA256: [String]? = nil
    /// Where the entry's data begins in its archive.
    var dataOffset: UInt64? = nil
    /// The name of the chunking that cut ``blocks`` (`ContentChunking.name`), for a file with them.
    var chunking: String? = nil

    /// The manifest's name for the method.
    var methodName: String { method == .deflate ? "deflate" : "stored" }
}

/// Packs one file into a zip of its own, streaming, with fixed timestamps and normalized permissions. A file
/// is deflated when a sample shrinks (``CompressibilityProbe``) and written again stored when the whole does
/// not shrink by ``PackingRules/minimumSaving`` (reading stored data costs nothing; inflating costs time).
/// A file larger than a chunk's maximum is cut into content-defined chunks (``PackingRules/chunking``), found in
/// a read of their own before it is packed; deflated, each chunk is compressed on its own, on `jobs` threads.
struct EntryPacker: Sendable {
    let rules: PackingRules
    let options: ZipWriterOptions
    let followSymlinks: Bool

    init(rules: PackingRules, followSymlinks: Bool) {
        self.rules = rules
        self.options = ZipWriterOptions.deterministic(level: rules.level)
        self.followSymlinks = followSymlinks
    }

    /// Writes `item` as entry `entry` of a new zip at `archive`, deflating large files on up to `jobs` threads.
    /// `method`, when given, is what ``chooseMethod(for:)`` said.
    func pack(_ item: SourceItem, entry: String, to archive: String, method chosen: CompressionMethod? = nil,
              jobs: Int = 1) throws(AssetPackError) -> PackedFile {
        var method: CompressionMethod
        if let chosen { method = chosen } else { method = try chooseMethod(for: item) }
        let chunks = rules.cutsIntoChunks(size: item.size)
            ? try FileDigest.chunks(item.sourcePath, size: item.size, by: rules.chunking, follow: followSymlinks) : nil
        var packed = try write(item, entry: entry, method: method, chunks: chunks, to: archive, jobs: jobs)
        if method == .deflate, !PackingRules.saves(packed.compressedSize, of: packed.size, atLeast: rules.minimumSaving) {
            method = .stored
            packed = try write(item, entry: entry, method: method, chunks: chunks, to: archive, jobs: jobs)
        }
        return packed
    }

    /// Stored or deflate, before the full pass.
    func chooseMethod(for item: SourceItem) throws(AssetPackError) -> CompressionMethod {
        guard rules.level > 0 else { return .stored }
        let worth = try CompressibilityProbe(rules: rules).worthDeflating(item.sourcePath, size: item.size)
        return worth ? .deflate : .stored
    }

    /// Writes `item` as `entry` of a new zip at `archive`, compressed with `method`: when `chunks` are given, a
    /// deflated file chunk by chunk on `jobs` threads and either kind with its chunk index.
    private func write(_ item: SourceItem, entry: String, method: CompressionMethod, chunks: FileChunks?, to archive: String,
                       jobs: Int) throws(AssetPackError) -> PackedFile {
        let writer: ZipWriter
        do { writer = try ZipWriter(path: archive, options: options) } catch { throw AssetPackError(error) }
        let written: WrittenEntry, sha256: String
        var blocks: [[UInt64]]?
        if let chunks, let digest = chunks.fileSHA256, method == .deflate {
            written = try Self.addInBlocks(item, as: entry, to: writer, level: rules.level, lengths: chunks.lengths, jobs: jobs,
                                           follow: followSymlinks)
            blocks = written.blocks?.pairs
            sha256 = digest
        } else {
            let source = try SourceFile(item.sourcePath, expectedSize: item.size, follow: followSymlinks)
            written = try Self.addStreaming(item, as: entry, method: method, to: writer, from: source)
            sha256 = source.sha256
            blocks = chunks?.storedPairs
        }
        do { try writer.finish(sync: false) } catch { throw AssetPackError(error) }
        try io(FileSystem.setPermissions(archive, 0o644))
        var packed = PackedFile(crc32: written.crc32, size: written.uncompressedSize, method: written.method,
                                compressedSize: written.compressedSize, sha256: sha256, dataOffset: written.dataOffset)
        // The chunk index only when the bytes packed are those the chunks were cut from (the file did not change between).
        if let chunks, let blocks, chunks.fileSHA256 == sha256, blocks.count == chunks.lengths.count {
            (packed.blocks, packed.blockSHA256, packed.chunking) = (blocks, chunks.sha256.compactMap { $0 }, rules.chunking.name)
        }
        return packed
    }

    /// Adds `item` to `writer`, read front to back from `source` (which hashes it on the way) through one
    /// compressor (or stored).
    static func addStreaming(_ item: SourceItem, as entry: String, method: CompressionMethod, to writer: ZipWriter,
                             from source: SourceFile) throws(AssetPackError) -> WrittenEntry {
        let written: WrittenEntry
        do {
            written = try writer.addFile(entry, from: source, size: item.size, method: method,
                                         permissions: item.isExecutable ? 0o755 : 0o644)
        } catch {
            // A failed read names the source file, a failed write the archive: the zip error knows which.
            throw source.explain(error)
        }
        try source.checkComplete()
        return written
    }

    /// Adds `item` to `writer` deflated at `level` in independent blocks on up to `jobs` threads: blocks of
    /// `lengths` (its chunks), or of `ParallelDeflater.defaultBlockSize` when nil.
    static func addInBlocks(_ item: SourceItem, as entry: String, to writer: ZipWriter, level: Int, lengths: [Int]?, jobs: Int,
                            follow: Bool) throws(AssetPackError) -> WrittenEntry {
        let source = try SourceFileRegion(item.sourcePath, expectedSize: item.size, follow: follow)
        let written: WrittenEntry
        do {
            let deflater = try ParallelDeflater(level: level, jobs: jobs)
            written = try writer.addFile(entry, from: source, deflater: deflater, blockLengths: lengths,
                                         permissions: item.isExecutable ? 0o755 : 0o644)
        } catch {
            throw source.explain(error)
        }
        try source.checkUnchanged()
        return written
    }
}
