import AssetPackZip

/// An asset tree inside a zip archive — a plain zip, an APK (`root: "assets"`), an IPA, a jar, or a
/// packed bundle — starting at the folder `root` of the archive.
///
/// Folders are those stated by directory entries or implied by longer names (APKs have no directory
/// entries), as `ZipArchive/contentsOfDirectory(_:)` gives them; names are returned as stored, and
/// checking them is the walker's job. ``open(_:)`` returns the entry's verified stream.
///
/// Random access: a stored entry is a byte range of the archive (a `SliceSource`, verified against the
/// entry's CRC-32 first), so a stored zip inside it can be opened with `ZipArchive` in place; a deflated
/// entry gives nil. Symbolic-link entries are refused with `.symlink`; a FIFO, socket or device entry reads as
/// the regular file of its data (`ArchiveEntryPolicy`).
public struct ZipAssetSource: AssetSource, SizedAssetSource, RandomAccessAssetSource {
    /// The archive read.
    public let archive: ZipArchive
    /// The folder of the archive the tree starts at, without leading or trailing `/` ("" for all of it).
    public let root: String

    /// A source over the folder `root` (e.g. `"assets"` or `"assets/"`) of `archive`; "" for the whole archive.
    public init(archive: ZipArchive, root: String = "") {
        self.archive = archive
        var trimmed = Substring(root)
        while trimmed.hasPrefix("/") { trimmed.removeFirst() }
        while trimmed.hasSuffix("/") { trimmed.removeLast() }
        self.root = String(trimmed)
    }

    /// Opens the archive at `path` and makes a source over its folder `root`.
    /// - Throws: ``AssetPackError`` wrapping the zip layer's error (`.io`, `.archive`, `.limitExceeded`).
    public init(path: String, root: String = "", limits: ZipLimits = .default) throws(AssetPackError) {
        self.init(archive: try zipLayer(ZipArchive(path: path, limits: limits)), root: root)
    }

    /// The archive's path, and the root folder when there is one.
    public var name: String { root.isEmpty ? archive.name : "\(archive.name) (\(root)/)" }

    /// The names directly inside the folder at `path`; `[]` for a file or a missing path.
    public func list(_ path: AssetPath) throws(AssetPackError) -> [String] {
        archive.contentsOfDirectory(ZipArchive.entryName(path, root: root)) ?? []
    }

    /// Opens the file entry at `path`; the stream verifies size and CRC-32 before it reports the end.
    /// - Throws: `.notFound` for a folder or a missing path, `.symlink`, `.unsupported` (encryption, method), `.archive`.
    public func open(_ path: AssetPath) throws(AssetPackError) -> any ByteStream {
        let entry = try fileEntry(path)
        return try zipLayer(archive.open(entry))
    }

    /// The uncompressed size of the file entry at `path`; nil for a folder, a link or a missing path.
    public func size(of path: AssetPath) throws(AssetPackError) -> UInt64? {
        guard let entry = entry(path), ArchiveEntryPolicy.isFile(entry) else { return nil }
        return entry.uncompressedSize
    }

    /// A stored file entry as a byte range of the archive; nil for a deflated (or encrypted) entry.
    /// The entry is read once and its size and CRC-32 checked before the range is returned: an archive
    /// read in place checks its own entries' data, but not its central directory or local headers.
    /// - Throws: as ``open(_:)``; `.archive` when the entry's bytes do not match its CRC-32.
    public func randomAccess(_ path: AssetPath) throws(AssetPackError) -> (any RandomAccessSource)? {
        let entry = try fileEntry(path)
        guard entry.compressedSize == entry.uncompressedSize else { return nil }
        return try archive.storedSlice(of: entry)
    }

    /// The archive's entries below ``root``: ``AssetStorage/archive(_:root:)``.
    public var storage: AssetStorage { .archive(archive, root: root) }

    private func entry(_ path: AssetPath) -> ZipEntry? {
        path.isRoot ? nil : archive.entry(named: ZipArchive.entryName(path, root: root))
    }

    /// The entry at `path` when it is a file; otherwise the error `open` reports.
    private func fileEntry(_ path: AssetPath) throws(AssetPackError) -> ZipEntry {
        var shown: String { "\(archive.name): \(ZipArchive.entryName(path, root: root))" }  // for messages only
        guard let entry = entry(path) else { throw AssetPackError(.notFound, "no such file", path: shown) }
        switch entry.kind {
        case .file, .special: return entry  // a FIFO, socket or device entry reads as a file (ArchiveEntryPolicy)
        case .directory: throw AssetPackError(.notFound, "is a directory, not a file", path: shown)
        case .symlink: throw AssetPackError(.symlink, "is a symbolic link; links are not followed", path: shown)
        }
    }
}
