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
              let zipEntry = archive.entries.first, matches(zipEntry, old, storage, item: item),
              blocksFit(storage.blocks, zipEntry, in: archive), let sha256 = try? sameContents(item, zipEntry, in: archive),
              let dataOffset = try? archive.dataRange(of: zipEntry).lowerBound
        else { return nil }
        var packed = PackedFile(crc32: zipEntry.crc32, size: zipEntry.uncompressedSize, method: zipEntry.method,
                                compressedSize: zipEntry.compressedSize, blocks: storage.blocks, sha256: sha256, dataOffset: dataOffset)
        if storage.blocks != nil {
            guard let digests = try? FileDigest.ofBlocks(item.sourcePath, size: item.size, blockSize: rules.blockSize,
                                                         follow: followSymlinks), digests.file == sha256 else { return nil }
            packed.blockSHA256 = digests.blocks
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

    /// True when `blocks` is the index this build would record for `zipEntry` of `archive`: none unless it is
    /// deflated in blocks, else one block per ``PackingRules/blockSize`` bytes, each of which inflates on its own
    /// from its compressed offset to its end, all of them to the entry's size and CRC-32 (inflated and dropped).
    private func blocksFit(_ blocks: [[UInt64]]?, _ zipEntry: ZipEntry, in archive: ZipArchive) -> Bool {
        guard zipEntry.method == .deflate, rules.deflatesInBlocks(size: zipEntry.uncompressedSize) else { return blocks == nil }
        guard let blocks, let index = try? DeflateBlockIndex(pairs: blocks),
              (try? index.spans(uncompressedSize: zipEntry.uncompressedSize, compressedSize: zipEntry.compressedSize)) != nil
        else { return false }
        let expected = stride(from: 0, to: zipEntry.uncompressedSize, by: rules.blockSize).map { $0 }
        guard index.blocks.map(\.uncompressedOffset) == expected, let sink = try? FileDescriptor.open("/dev/null", .writeOnly)
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
