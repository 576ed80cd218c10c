import AssetPackZip

/// A source resolved once: where its files are (``AssetSource/storage``) and which optional capabilities
/// it offers. This is the one place that looks past `list` and `open`; planning, archive opening and the
/// packed-bundle view ask this value, never the source's type.
struct SourceAccess: Sendable {
    /// The source.
    let source: any AssetSource
    /// Where its files are.
    let storage: AssetStorage
    /// The source as a ``SizedAssetSource``, when it is one.
    let sized: (any SizedAssetSource)?
    private let randomAccessible: (any RandomAccessAssetSource)?

    init(_ source: any AssetSource) {
        self.source = source
        self.storage = source.storage
        self.sized = source as? any SizedAssetSource
        self.randomAccessible = source as? any RandomAccessAssetSource
    }

    /// The source's name.
    var name: String { source.name }

    /// The file or folder on disk the source reads, as given (``AssetStorage/diskFile``); else its name.
    /// What an error about one of its entries names as its ``AssetPackError/path``.
    var fileName: String { storage.diskFile ?? source.name }

    /// Random access to the file at `path`; nil when the source cannot give this file (or any file) that way.
    func randomAccess(_ path: AssetPath) throws(AssetPackError) -> (any RandomAccessSource)? {
        try randomAccessible?.randomAccess(path)
    }
}

extension AssetStorage {
    /// The folder on disk whose files the source reads (a packed-bundle view's bundle folder), or nil.
    var diskFolder: String? {
        switch self {
        case .folder(let root): root
        case .packedBundle(let base, _): base.storage.diskFolder
        case .opaque, .archive, .delivered: nil
        }
    }

    /// The file or folder on disk the source reads: the archive (without the folder of it the tree starts
    /// at), the folder, a packed-bundle view's bundle folder; nil for a source with no such file.
    var diskFile: String? {
        switch self {
        case .folder(let root): root
        case .archive(let archive, _): archive.name
        case .packedBundle(let base, _): base.storage.diskFile
        case .opaque, .delivered: nil
        }
    }
}

extension ZipArchive {
    /// The entry name of `path` in an archive whose tree starts at the folder `root` ("" for the whole
    /// archive; the root itself for ``AssetPath/root``).
    static func entryName(_ path: AssetPath, root: String) -> String {
        if root.isEmpty { return path.string }
        return path.isRoot ? root : root + "/" + path.string
    }

    /// A stored, unencrypted file entry's data as a byte range of the archive, once its size and CRC-32
    /// are verified; nil for any other entry.
    ///
    /// The range is read once before it is handed out (``ZipArchive/verify(_:)``): a nested archive read in
    /// place trusts bytes no other checksum covers (its central directory and local headers).
    /// - Throws: ``AssetPackError`` wrapping the zip layer's error (`.archive` for a mismatch).
    func storedSlice(of entry: ZipEntry) throws(AssetPackError) -> (any RandomAccessSource)? {
        guard ArchiveEntryPolicy.isFile(entry), entry.method == .stored, !entry.isEncrypted else { return nil }
        do {
            try verify(entry)
            let range = try dataRange(of: entry)
            return SliceSource(source, offset: range.lowerBound, length: range.upperBound - range.lowerBound,
                               name: "\(name): \(entry.name)")
        } catch {
            throw AssetPackError(error)
        }
    }
}
