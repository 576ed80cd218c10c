import AssetPack
import AssetPackZip

/// How one file ended up in its archive.
struct PackedFile: Sendable, Equatable {
    var crc32: UInt32
    var size: UInt64
    var method: CompressionMethod
    var compressedSize: UInt64

    /// The manifest's name for the method.
    var methodName: String { method == .deflate ? "deflate" : "stored" }
}

/// Packs one file into a zip of its own, streaming (the file is never held in memory), with fixed
/// timestamps and normalized permissions so the same bytes always give the same archive.
///
/// The method: with level 0, stored. Otherwise the ``CompressibilityProbe`` looks at a sample; when the
/// sample does not shrink by ``PackingRules/minimumSampleSaving`` the file is stored, else it is deflated —
/// and when the whole deflated file still does not shrink by ``PackingRules/minimumSaving``, the archive
/// is written again with the file stored (reading stored data costs nothing; inflating costs time).
///
/// Each call stands alone, so files can be packed in parallel, one packer per thread.
struct EntryPacker {
    let rules: PackingRules
    let options: ZipWriterOptions
    let followSymlinks: Bool

    init(rules: PackingRules, followSymlinks: Bool) {
        self.rules = rules
        self.options = ZipWriterOptions.deterministic(level: rules.level)
        self.followSymlinks = followSymlinks
    }

    /// Writes `item` as entry `entry` of a new zip at `archive`.
    func pack(_ item: SourceItem, entry: String, to archive: String) throws(AssetPackError) -> PackedFile {
        var method = try chooseMethod(for: item)
        var packed = try write(item, entry: entry, method: method, to: archive)
        if method == .deflate, !PackingRules.saves(packed.compressedSize, of: packed.size, atLeast: rules.minimumSaving) {
            method = .stored
            packed = try write(item, entry: entry, method: method, to: archive)
        }
        return packed
    }

    /// Stored or deflate, before the full pass.
    func chooseMethod(for item: SourceItem) throws(AssetPackError) -> CompressionMethod {
        guard rules.level > 0 else { return .stored }
        let worth = try CompressibilityProbe(rules: rules).worthDeflating(item.sourcePath, size: item.size)
        return worth ? .deflate : .stored
    }

    private func write(_ item: SourceItem, entry: String, method: CompressionMethod,
                       to archive: String) throws(AssetPackError) -> PackedFile {
        let source = try SourceFile(item.sourcePath, expectedSize: item.size, follow: followSymlinks)
        let written: WrittenEntry
        do {
            let writer = try ZipWriter(path: archive, options: options)
            written = try writer.addFile(entry, from: source, size: item.size, method: method,
                                         permissions: item.isExecutable ? 0o755 : 0o644)
            try writer.finish(sync: false)
        } catch {
            // A failed read names the source file, a failed write the archive: the zip error knows which.
            throw source.explain(error)
        }
        try source.checkComplete()
        try FileSystem.setPermissions(archive, 0o644)
        return PackedFile(crc32: written.crc32, size: written.uncompressedSize, method: written.method,
                          compressedSize: written.compressedSize)
    }
}
