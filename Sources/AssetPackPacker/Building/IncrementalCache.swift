import AssetPack
import AssetPackSystem
import AssetPackZip

/// The previous bundle at the output path, lending its archives to the next build so unchanged files are
/// not compressed again.
///
/// An archive is reused (hard-linked, or copied) only when the new build would write exactly the same bytes:
/// same generator and ``BundleManifest/packing`` line, same path, size, executable bit, entry and timestamp,
/// and — the deciding check — its entry inflates to exactly the source file's bytes (several times faster than
/// deflating, and no room for a CRC-32 collision). Modification times are not consulted: they lie after a
/// checkout. A block index is lent on only when every block inflates on its own, as the expander will.
struct IncrementalCache: Sendable {
    /// The previous bundle folder.
    let root: String
    private let time: DOSDateTime
    private let followSymlinks: Bool
    private let rules: PackingRules

    /// The bundle at `bundle`, when its manifest reads and checks out (read through once, keeping no entry:
    /// `BundleManifest.visitEntries`) and it was packed the way `rules` packs; else nil. The entries
    /// themselves are merged in as the build walks (``PreviousEntries``).
    static func load(bundle: String, rules: PackingRules, followSymlinks: Bool) -> IncrementalCache? {
        guard let read = try? BundleManifest.visitEntries(in: DirectorySource(root: bundle), { _ in }),
              read.manifest.generator == ManifestWriter.generator, read.manifest.packing == rules.fingerprint
        else { return nil }
        return IncrementalCache(root: bundle,
                                time: DOSDateTime(unixTime: EntryPacker(rules: rules, followSymlinks: followSymlinks).options.fixedTime ?? 0),
                                followSymlinks: followSymlinks, rules: rules)
    }

    /// The previous archive of `item` (whose previous entry is `old`) with what it holds, when it can stand in
    /// for packing `item` as `entry`.
    func reusableArchive(for item: SourceItem, entry: String,
                         old: BundleManifest.Entry?) -> (path: String, packed: PackedFile)? {
        guard let old, old.kind == .file, old.size == item.size,
              (old.mode == 0o755) == item.isExecutable, let storage = old.storage, storage.form == .packed,
              storage.entry == entry, let file = try? AssetPath(storage.file), !file.isRoot
        else { return nil }
        let path = root + "/" + file.string
        guard (try? FileSystem.status(path))??.kind == .file,
              let archive = try? ZipArchive(path: path), archive.entries.count == 1, archive.comment.isEmpty,
              let zipEntry = archive.entries.first, matches(zipEntry, old, storage, item: item)
        else { return nil }
        let chunks: FileChunks?
        do { chunks = try self.chunks(of: item, storage) } catch { return nil }
        guard blocksFit(storage.blocks, chunks, zipEntry, in: archive), let sha256 = try? sameContents(item, zipEntry, in: archive),
              let dataOffset = try? archive.dataRange(of: zipEntry).lowerBound
        else { return nil }
        var packed = PackedFile(crc32: zipEntry.crc32, size: zipEntry.uncompressedSize, method: zipEntry.method,
                                compressedSize: zipEntry.compressedSize, blocks: storage.blocks, sha256: sha256, dataOffset: dataOffset)
        if let chunks {
            guard chunks.fileSHA256 == sha256 else { return nil }
            packed.blockSHA256 = chunks.sha256.compactMap { $0 }
            packed.chunking = rules.chunking.name
        }
        return (path, packed)
    }

    /// The previous pack archive holding exactly `members` (same paths, in order, sizes and executable
    /// bits, with the same bytes; their previous entries are `olds`), with how each is packed (SHA-256 and
    /// data offset included); nil when there is none.
    func reusablePack(for members: [SourceItem],
                      olds: [BundleManifest.Entry?]) -> (path: String, packed: [PackedFile])? {
        guard olds.count == members.count, let first = olds.first, let old = first, let storage = old.storage,
              storage.form == .packed, let file = try? AssetPath(storage.file), !file.isRoot
        else { return nil }
        let path = root + "/" + file.string
        guard (try? FileSystem.status(path))??.kind == .file, let archive = try? ZipArchive(path: path),
              archive.entries.count == members.count, archive.comment.isEmpty
        else { return nil }
        var packed: [PackedFile] = []
        for ((item, old), zipEntry) in zip(zip(members, olds), archive.entries) {
            guard let old, let storage = old.storage, storage.file == file.string,
                  storage.entry == item.path.string,
                  (old.mode == 0o755) == item.isExecutable, matches(zipEntry, old, storage, item: item),
                  storage.blocks == nil, let sha256 = try? sameContents(item, zipEntry, in: archive),
                  let dataOffset = try? archive.dataRange(of: zipEntry).lowerBound
            else { return nil }
            packed.append(PackedFile(crc32: zipEntry.crc32, size: zipEntry.uncompressedSize, method: zipEntry.method,
                                     compressedSize: zipEntry.compressedSize, sha256: sha256, dataOffset: dataOffset))
        }
        return (path, packed)
    }

    /// The chunks this build cuts `item` into, when it cuts it and the previous entry's `storage` was cut by
    /// the same rule; nil when neither cuts it. Throws when one does and the other does not.
    private func chunks(of item: SourceItem, _ storage: BundleManifest.Storage) throws(AssetPackError) -> FileChunks? {
        guard rules.cutsIntoChunks(size: item.size) else {
            guard storage.chunking == nil else { throw AssetPackError(.unsupported, "not cut into chunks now") }
            return nil
        }
        guard storage.chunking == rules.chunking.name else { throw AssetPackError(.unsupported, "cut by another rule") }
        return try FileDigest.chunks(item.sourcePath, size: item.size, by: rules.chunking, follow: followSymlinks)
    }

    /// True when `blocks` is the index this build would record for `zipEntry` of `archive`: none when the file
    /// has no `chunks`, else one block per chunk, for a stored entry at the same offsets, for a deflated one each
    /// inflating on its own from its compressed offset to its end, all of them to the entry's size and CRC-32
    /// (inflated and dropped).
    private func blocksFit(_ blocks: [[UInt64]]?, _ chunks: FileChunks?, _ zipEntry: ZipEntry, in archive: ZipArchive) -> Bool {
        guard let chunks else { return blocks == nil }
        guard zipEntry.method == .deflate else { return blocks == chunks.storedPairs }
        guard let blocks, let index = try? DeflateBlockIndex(pairs: blocks),
              (try? index.spans(uncompressedSize: zipEntry.uncompressedSize, compressedSize: zipEntry.compressedSize)) != nil
        else { return false }
        guard index.blocks.map(\.uncompressedOffset) == chunks.offsets, let sink = try? FileDescriptor.open("/dev/null", .writeOnly)
        else { return false }
        defer { sink.close() }
        let inflater = try? BlockParallelInflater(archive: archive, entry: zipEntry, index: index)
        return (try? inflater?.inflate(into: sink.rawValue, path: "/dev/null", jobs: 1)) == zipEntry.crc32
    }

    private func matches(_ zipEntry: ZipEntry, _ old: BundleManifest.Entry, _ storage: BundleManifest.Storage,
                         item: SourceItem) -> Bool {
        let method = zipEntry.method == .deflate ? "deflate" : (zipEntry.method == .stored ? "stored" : "")
        return zipEntry.name == storage.entry && zipEntry.crc32 == old.crc32 && zipEntry.uncompressedSize == item.size
            && method == storage.method && zipEntry.compressedSize == storage.compressedSize
            && zipEntry.modified == time && zipEntry.isExecutable == item.isExecutable && zipEntry.kind == .file
    }

    /// Streams the source file and the inflated entry side by side; the file's SHA-256 when every byte is
    /// equal, nil otherwise.
    private func sameContents(_ item: SourceItem, _ zipEntry: ZipEntry, in archive: ZipArchive) throws -> String? {
        let source = try SourceFile(item.sourcePath, expectedSize: item.size, follow: followSymlinks)
        let reader = try archive.open(zipEntry)
        let size = 256 * 1024
        let left = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 16)
        let right = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 16)
        defer { left.deallocate(); right.deallocate() }
        while true {
            let count = try Self.fill(left, from: source)
            guard try Self.fill(right, from: reader) == count else { return nil }
            guard Memory.equal(left.baseAddress!, right.baseAddress!, count: count) else { return nil }
            if count == 0 { return source.bytesRead == item.size ? source.sha256 : nil }
        }
    }

    /// Reads until `buffer` is full or the stream ends.
    private static func fill(_ buffer: UnsafeMutableRawBufferPointer, from stream: any ByteStream) throws(ZipError) -> Int {
        var filled = 0
        while filled < buffer.count {
            let count = try stream.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
            if count == 0 { break }
            filled += count
        }
        return filled
    }

    /// Puts the archive at `old` into the new bundle at `destination`: a hard link, or a copy.
    func adopt(_ old: String, as destination: String, copier: FileCopier) throws(AssetPackError) {
        if try io(FileSystem.hardLink(old, to: destination)) { return }
        let size = try io(FileSystem.status(old))?.size ?? 0
        _ = try copier.copy(SourceFile(old, expectedSize: size, follow: false), to: destination, permissions: 0o644)
    }
}
