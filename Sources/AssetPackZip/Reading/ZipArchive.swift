import AssetPackSystem

/// A zip archive opened for random access: the central directory is read once into an index, and any
/// number of entries can then be read, from any number of threads at once (reads are positioned; there
/// is no shared seek position).
///
/// ```swift
/// let archive = try ZipArchive(path: "photos.zip")
/// for entry in archive.entries where entry.kind == .file {
///     let reader = try archive.open(entry)   // verifies size and CRC-32 before reporting the end
///     ...
/// }
/// ```
public final class ZipArchive: Sendable {
    /// Where the bytes come from.
    public let source: any RandomAccessSource
    /// The entries in central-directory order.
    public let entries: [ZipEntry]
    /// The archive comment's raw bytes.
    public let comment: [UInt8]
    /// Bytes in front of the archive that its offsets do not count (a self-extractor stub), or 0.
    public let prefixLength: UInt64
    /// The limits this archive was opened with; readers apply the ratio limit.
    public let limits: ZipLimits
    /// Where the central directory starts.
    public let centralDirectoryOffset: UInt64
    let index: ZipIndex

    /// Opens the archive at `path`.
    /// - Throws: ``ZipError`` naming the path: `.io` when it cannot be read, `.format`, `.truncated`,
    ///   `.overlap` or `.limitExceeded` when its structure is broken or hostile.
    public convenience init(path: String, limits: ZipLimits = .default) throws(ZipError) {
        try self.init(source: try FileSource(path: path), limits: limits)
    }

    /// Opens an archive held by any random-access source (a file, a byte range of another archive, memory).
    public init(source: any RandomAccessSource, limits: ZipLimits = .default) throws(ZipError) {
        let location = try EndRecordLocator.locate(in: source)
        var parsed = try CentralDirectoryReader(source: source, location: location, limits: limits).readEntries()
        try OverlapCheck.assignDataLimits(&parsed, directoryOffset: location.offset, archive: source.name)
        self.source = source
        self.entries = parsed
        self.comment = location.comment
        self.prefixLength = location.prefix
        self.limits = limits
        self.centralDirectoryOffset = location.offset
        self.index = ZipIndex(entries)
    }

    /// The archive's name for messages (its path, for a file).
    public var name: String { source.name }

    /// The entry with exactly this name (the first, if the archive holds duplicates), or nil.
    /// - Complexity: O(1) on average.
    public func entry(named name: String) -> ZipEntry? {
        index.position(of: name).map { entries[$0] }
    }

    /// An entry with exactly this name, looked for first right after the entry at position `previous`
    /// (a reader going through the archive in its own order finds each name there, without hashing it or
    /// taking the index's lock), else as ``entry(named:)`` finds it. When the archive holds the name more
    /// than once, the entry found may be a later one than ``entry(named:)``'s: check its size and CRC-32
    /// against what you expect, as a reader does anyway.
    /// - Complexity: O(1) on average.
    public func entry(named name: String, after previous: Int) -> ZipEntry? {
        let next = previous &+ 1
        if next >= 0, next < entries.count, Memory.sameBytes(entries[next].name, name) { return entries[next] }
        return entry(named: name)
    }

    /// The entry with this name, or a ``ZipError/Code/notFound`` error naming it.
    public func requireEntry(named name: String) throws(ZipError) -> ZipEntry {
        guard let entry = entry(named: name) else {
            throw ZipError(.notFound, "no such entry", archive: source.name, entry: name)
        }
        return entry
    }

    /// Names directly inside directory `path` ("" for the top), including directories that only appear
    /// as parts of longer names; sorted. Nil when `path` is neither stated nor implied as a directory.
    /// - Complexity: O(1) on average to find the directory.
    public func contentsOfDirectory(_ path: String) -> [String]? {
        index.children(of: path)
    }

    /// True when `path` is a directory, stated by an entry or implied by a longer name.
    public func isDirectory(_ path: String) -> Bool { index.children(of: path) != nil }

    /// Opens an entry for reading. The stream checks the local header against the central one now, and
    /// size and CRC-32 before it reports the end; it never yields more bytes than declared.
    /// - Throws: ``ZipError`` naming the entry: `.encrypted`, `.unsupportedMethod`, `.headerMismatch`, `.overlap`, `.truncated`.
    public func open(_ entry: ZipEntry, bufferSize: Int = 256 * 1024) throws(ZipError) -> ZipEntryReader {
        try ZipEntryReader(archive: self, entry: entry, bufferSize: bufferSize)
    }

    /// Opens an entry for reading like ``open(_:bufferSize:)``, borrowing `buffers` (the input buffer and
    /// the zlib stream) instead of allocating its own, until the reader is released. For a thread that
    /// reads many entries one after another; a small entry then costs one `pread` in all.
    public func open(_ entry: ZipEntry, buffers: ZipReadBuffers) throws(ZipError) -> ZipEntryReader {
        try ZipEntryReader(archive: self, entry: entry, bufferSize: buffers.input.count, buffers: buffers)
    }

    /// Reads a whole (small) entry into memory, verified.
    public func contents(of entry: ZipEntry, limit: Int = 64 << 20) throws(ZipError) -> [UInt8] {
        guard entry.uncompressedSize <= UInt64(limit) else {
            throw ZipError(.limitExceeded, "entry is \(entry.uncompressedSize) bytes, more than \(limit) to hold in memory",
                           archive: source.name, entry: entry.name)
        }
        return try open(entry).readAll(limit: limit)
    }

    /// Reads and verifies every entry (``verify(_:)``); throws the first failure. Returns the number of
    /// bytes checked.
    @discardableResult
    public func verify() throws(ZipError) -> UInt64 {
        var total: UInt64 = 0
        var buffer = [UInt8](repeating: 0, count: 256 * 1024)
        for entry in entries { total += try verify(entry, buffer: &buffer) }
        return total
    }

    /// Reads `entry` to its end through ``open(_:bufferSize:)``, which checks its local header against the
    /// central one, then its size and CRC-32; a directory entry, which has no data, has its local header
    /// checked all the same (``checkLocalHeader(of:)``). An entry whose declared sizes pass the ratio limit
    /// is refused before it is read (``ZipLimits/checkDeclaredRatio(of:)``), as expanding it is. Returns
    /// the number of bytes checked.
    /// - Throws: ``ZipError`` naming the entry, as ``open(_:bufferSize:)`` and its reads do.
    @discardableResult
    public func verify(_ entry: ZipEntry) throws(ZipError) -> UInt64 {
        var buffer = [UInt8](repeating: 0, count: Int(min(entry.uncompressedSize, 256 * 1024)) + 1)
        return try verify(entry, buffer: &buffer)
    }

    /// ``verify(_:)`` reading through `buffer`.
    private func verify(_ entry: ZipEntry, buffer: inout [UInt8]) throws(ZipError) -> UInt64 {
        guard entry.kind != .directory else {
            try checkLocalHeader(of: entry)
            return 0
        }
        do throws(ZipError) { try limits.checkDeclaredRatio(of: entry) } catch { throw error.inArchive(name).forEntry(entry.name) }
        let reader = try open(entry)
        var total: UInt64 = 0
        while true {
            let count = try buffer.withMutableRawBytes { (raw) throws(ZipError) -> Int in try reader.read(into: raw) }
            if count == 0 { return total }
            total += UInt64(count)
        }
    }
}
