import AssetPackSystem

/// A zip archive opened for random access: the central directory is read and checked once, and any
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
///
/// An archive whose central directory is larger than ``ZipLimits/maxHeldDirectoryBytes`` does not hold its
/// entries: go through them with ``entries(from:)``.
public final class ZipArchive: Sendable {
    /// Where the bytes come from.
    public let source: any RandomAccessSource
    /// The archive comment's raw bytes.
    public let comment: [UInt8]
    /// Bytes in front of the archive that its offsets do not count (a self-extractor stub), or 0.
    package let prefixLength: UInt64
    /// The limits this archive was opened with; readers apply the ratio limit.
    public let limits: ZipLimits
    /// Where the central directory starts.
    package let centralDirectoryOffset: UInt64
    /// How many entries the archive holds.
    public let entryCount: Int
    private let location: CentralDirectoryLocation
    private let store: EntryStore

    /// Opens the archive at `path`.
    /// - Throws: ``ZipError`` naming the path: `.io` when it cannot be read, `.format`, `.truncated`,
    ///   `.overlap` or `.limitExceeded` when its structure is broken or hostile.
    public convenience init(path: String, limits: ZipLimits = .default) throws(ZipError) {
        try self.init(source: try FileSource(path: path), limits: limits)
    }

    /// Opens an archive held by any random-access source (a file, a byte range of another archive, memory).
    public init(source: any RandomAccessSource, limits: ZipLimits = .default) throws(ZipError) {
        let location = try EndRecordLocator.locate(in: source)
        if location.size <= limits.maxHeldDirectoryBytes {
            var reader = CentralDirectoryReader(source: source, location: location, limits: limits)
            var parsed = try reader.readEntries()
            try OverlapCheck.assignDataLimits(&parsed, directoryOffset: location.offset, archive: source.name)
            store = EntryStore(held: parsed)
            entryCount = parsed.count
        } else {
            let summary = try DirectorySummary.make(source: source, location: location, limits: limits)
            store = EntryStore(summary: summary)
            entryCount = summary.entryCount
        }
        self.source = source
        self.comment = location.comment
        self.prefixLength = location.prefix
        self.limits = limits
        self.centralDirectoryOffset = location.offset
        self.location = location
    }

    /// The archive's name for messages (its path, for a file).
    public var name: String { source.name }

    /// True when the archive holds its entries in memory; false when its directory is too large to
    /// (``ZipLimits/maxHeldDirectoryBytes``) and ``entries`` has not been asked for yet.
    public var holdsEntries: Bool { store.isLoaded }

    /// The entries in central-directory order. An archive that does not hold them
    /// (``ZipLimits/maxHeldDirectoryBytes``) reads them into memory on the first call; should that read
    /// fail (the file changed since it was opened), the entries read so far are returned and every later
    /// read of an entry throws why.
    public var entries: [ZipEntry] { loaded().entries }

    /// The entries in central-directory order, one at a time, from the entry at position `first`: read
    /// from the central directory as a stream when the archive does not hold them, so that going through
    /// a huge archive costs no memory per entry.
    public func entries(from first: Int = 0) -> ZipEntryScanner {
        if store.isLoaded { return ZipEntryScanner(held: entries, from: first) }
        return ZipEntryScanner(reader: CentralDirectoryReader(source: source, location: location, limits: limits),
                               summary: store.summary!, from: first)
    }

    /// The entry with exactly this name (the first, if the archive holds duplicates), or nil.
    /// - Complexity: O(1) on average; for an archive that does not hold its entries, O(log n) and one read.
    public func entry(named name: String) -> ZipEntry? {
        if !store.isLoaded, let summary = store.summary { return lookUp(name, in: summary) }
        let held = loaded()
        return held.index.position(of: name).map { held.entries[$0] }
    }

    /// An entry with exactly this name, looked for first right after the entry at position `previous` (a
    /// reader going through the archive in order finds it there without hashing), else as ``entry(named:)``
    /// finds it; for a name held twice it may be the later entry.
    /// - Complexity: O(1) on average.
    package func entry(named name: String, after previous: Int) -> ZipEntry? {
        guard store.isLoaded else { return entry(named: name) }
        let entries = store.held
        let next = previous &+ 1
        if next >= 0, next < entries.count, Memory.sameBytes(entries[next].name, name) { return entries[next] }
        return entry(named: name)
    }

    /// The held entries and their index, read now when the archive did not hold them.
    private func loaded() -> (entries: [ZipEntry], index: ZipIndex) {
        store.load { () throws(ZipError) -> [ZipEntry] in
            var reader = CentralDirectoryReader(source: source, location: location, limits: limits)
            var parsed: [ZipEntry] = []
            parsed.reserveCapacity(entryCount)
            while var entry = try reader.next() {
                entry.dataLimit = store.summary!.dataLimit(of: entry.localHeaderOffset)
                parsed.append(entry)
            }
            return parsed
        }
    }

    /// The first entry named `name` found through `summary`: each candidate's record read (from the
    /// checkpoint before it) and its name compared.
    private func lookUp(_ name: String, in summary: DirectorySummary) -> ZipEntry? {
        let wanted = String(EntryName.withoutLeadingCurrentFolder(name))
        var reader = CentralDirectoryReader(source: source, location: location, limits: limits)
        reader.readAhead = 16 << 10
        for position in summary.candidates(named: wanted[...]) {
            var (index, offset) = summary.checkpoint(before: position)
            while true {
                guard var entry = try? reader.entry(at: offset, index: index) else { return nil }
                if index == position {
                    guard Memory.sameBytes(wanted, EntryName.withoutLeadingCurrentFolder(entry.name)) else { break }
                    entry.dataLimit = summary.dataLimit(of: entry.localHeaderOffset)
                    return entry
                }
                (index, offset) = (index + 1, reader.position)
            }
        }
        return nil
    }

    /// Why reading the entries into memory failed, if it did (see ``entries``).
    var loadFailure: ZipError? { store.failure }

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
        loaded().index.children(of: path)
    }

    /// True when `path` is a directory, stated by an entry or implied by a longer name.
    public func isDirectory(_ path: String) -> Bool { contentsOfDirectory(path) != nil }

    /// Opens an entry for reading. The stream checks the local header against the central one now, and
    /// size and CRC-32 before it reports the end; it never yields more bytes than declared.
    /// - Throws: ``ZipError`` naming the entry: `.encrypted`, `.unsupportedMethod`, `.headerMismatch`, `.overlap`, `.truncated`.
    public func open(_ entry: ZipEntry, bufferSize: Int = 256 * 1024) throws(ZipError) -> ZipEntryReader {
        if let loadFailure { throw loadFailure }
        return try ZipEntryReader(archive: self, entry: entry, bufferSize: bufferSize)
    }

    /// Opens an entry for reading like ``open(_:bufferSize:)``, borrowing `buffers` (the input buffer and
    /// the zlib stream) instead of allocating its own, until the reader is released. For a thread that
    /// reads many entries one after another; a small entry then costs one `pread` in all.
    public func open(_ entry: ZipEntry, buffers: ZipReadBuffers) throws(ZipError) -> ZipEntryReader {
        if let loadFailure { throw loadFailure }
        return try ZipEntryReader(archive: self, entry: entry, bufferSize: buffers.input.count, buffers: buffers)
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
        var scanner = entries()
        while let entry = try scanner.next() { total += try verify(entry, buffer: &buffer) }
        if let loadFailure { throw loadFailure }
        return total
    }

    /// Reads `entry` to its end through ``open(_:bufferSize:)``, which checks its local header against the
    /// central one, then its size and CRC-32; a directory entry, which has no data, has its local header
    /// checked all the same. An entry whose declared sizes pass ``ZipLimits/maxCompressionRatio`` is refused
    /// before it is read, as expanding it is. Returns the number of bytes checked.
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
