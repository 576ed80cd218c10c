/// Reads a zip archive front to back from a stream that cannot seek (a pipe, a socket, Android's
/// `AssetManager.open()`), as Java's `ZipInputStream` does: each entry's end comes from its local header
/// (APPNOTE 4.3.7) or, for deflate with a data descriptor, from the end of the deflate stream (APPNOTE 4.3.9).
/// The reader itself is the ``ByteStream`` of the current entry's data, checked as ``ZipEntryReader`` checks;
/// data the caller does not read is read, verified and dropped by the next ``nextEntry()``.
///
/// ```swift
/// let reader = ZipStreamReader(FileDescriptorStream(descriptor: 0, name: "stdin"), name: "assets.zip")
/// while let entry = try reader.nextEntry() {
///     if entry.kind == .file { try consume(reader) }   // reads the entry's data
/// }
/// ```
///
/// Some archives cannot be read this way, and say so: a stored entry with a data descriptor is
/// ``ZipError/Code/needsRandomAccess`` (open it with ``ZipArchive`` instead). After any error the reader
/// is spent: every later call throws the same error.
public final class ZipStreamReader: ByteStream {
    /// The archive's name for messages.
    public let name: String
    /// The limits applied: ``ZipLimits/maxEntries``, ``ZipLimits/maxTotalUncompressedSize`` (to the bytes
    /// actually produced) and the compression ratio.
    public let limits: ZipLimits
    /// The entry returned by the last ``nextEntry()``, with CRC-32 and sizes filled in once its data has
    /// been read to the end and verified; nil before the first entry and after the last.
    public private(set) var currentEntry: ZipStreamEntry?
    /// How many entries ``nextEntry()`` has returned.
    public private(set) var entryCount = 0
    private let input: StreamInput
    private var inflater: Inflater?
    private var data: StreamEntryData?
    private var reachedEnd = false
    private var failure: ZipError?
    private var totalProduced: UInt64 = 0

    /// A reader of `stream`, which must be positioned at the start of the archive.
    /// - Parameters:
    ///   - stream: the archive's bytes, read front to back.
    ///   - name: the archive's name, used in error messages.
    ///   - limits: the limits every entry is checked against (entries, sizes, compression ratio).
    ///   - bufferSize: bytes of read-ahead buffer (at least 4 KiB).
    public init(_ stream: any ByteStream, name: String, limits: ZipLimits = .default, bufferSize: Int = 64 * 1024) {
        self.input = StreamInput(stream, capacity: bufferSize)
        self.name = name
        self.limits = limits
    }

    /// Moves to the next entry, first reading and verifying whatever is left of the current one.
    /// - Returns: the entry, whose data ``read(into:)`` then yields; nil once the central directory (or
    ///   the end record) is reached. The central directory itself is not read.
    /// - Throws: ``ZipError`` naming the archive, the entry when there is one, and the offset:
    ///   `.truncated` when the stream ends before the central directory; `.format` for anything but a
    ///   local header or the central directory where a record should start; `.encrypted`,
    ///   `.unsupportedMethod` or `.needsRandomAccess` for entries this reader cannot read; any error of
    ///   ``read(into:)`` while skipping.
    public func nextEntry() throws(ZipError) -> ZipStreamEntry? {
        try guarded { () throws(ZipError) -> ZipStreamEntry? in
            try skipRestOfEntry()
            currentEntry = nil
            data = nil
            guard !reachedEnd, try atLocalHeader() else {
                reachedEnd = true
                return nil
            }
            return try startEntry()
        }
    }

    /// Fills `buffer` with the current entry's next bytes; returns 0 at its end, which is reached only after
    /// size and CRC-32 checked out (0 too when there is no current entry).
    /// - Throws: ``ZipError``: `.truncated`, `.corruptData`, `.sizeMismatch`, `.checksum`, `.limitExceeded`.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(ZipError) -> Int {
        try guarded { () throws(ZipError) -> Int in try readData(into: buffer) }
    }

    /// Bytes of the current entry handed out so far.
    public var bytesRead: UInt64 { data?.produced ?? 0 }

    // MARK: - Steps

    private func readData(into buffer: UnsafeMutableRawBufferPointer) throws(ZipError) -> Int {
        guard let data else { return 0 }
        let count = try data.read(into: buffer)
        totalProduced += UInt64(count)
        guard totalProduced <= limits.maxTotalUncompressedSize else {
            throw ZipError(.limitExceeded, "entries hold more than \(limits.maxTotalUncompressedSize) bytes in total",
                           offset: input.offset)
        }
        if let verified = data.verified { currentEntry = currentEntry?.with(verified) }
        return count
    }

    private func skipRestOfEntry() throws(ZipError) {
        guard let data, data.verified == nil else { return }
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 16 * 1024, alignment: 16)
        defer { scratch.deallocate() }
        while try readData(into: scratch) > 0 {}
    }

    /// Looks at the next record's signature: true for a local header, false for the central directory or
    /// the end record. Skips the marker a one-segment split archive may start with (APPNOTE 8.5.3).
    private func atLocalHeader() throws(ZipError) -> Bool {
        guard try input.require(4) else {
            let message = input.count == 0 ? "archive ends without a central directory" : "archive ends inside a record signature"
            throw ZipError(.truncated, message, offset: input.offset)
        }
        var cursor = ByteCursor(Array(input.buffered.prefix(4)))
        let signature = cursor.read(UInt32.self) ?? 0
        if input.offset == 0 && (signature == Signature.dataDescriptor || signature == Self.temporarySpanningMarker) {
            input.consume(4)
            return try atLocalHeader()
        }
        switch signature {
        case Signature.localFileHeader: return true
        case Signature.centralDirectoryHeader, Signature.endOfCentralDirectory, Signature.zip64EndOfCentralDirectory: return false
        default:
            throw ZipError(.format, "expected a local header or the central directory, found signature \(hex(signature))",
                           offset: input.offset)
        }
    }

    /// "PK00": written in front of an archive that was meant to be split but fit in one segment.
    private static let temporarySpanningMarker: UInt32 = 0x3030_4b50

    private func startEntry() throws(ZipError) -> ZipStreamEntry {
        guard entryCount < limits.maxEntries else {
            throw ZipError(.limitExceeded, "archive has more than the limit of \(limits.maxEntries) entries",
                           offset: input.offset)
        }
        let (entry, header) = try StreamLocalHeader.read(from: input)
        currentEntry = entry
        let length = try StreamLocalHeader.dataLength(of: entry, header: header, input: input)
        if case .declared(let values) = length { currentEntry = entry.with(values) }
        let decoder = entry.method == .deflate ? try resetInflater() : nil
        data = StreamEntryData(input: input, inflater: decoder, length: length, limits: limits)
        entryCount += 1
        return currentEntry ?? entry
    }

    private func resetInflater() throws(ZipError) -> Inflater {
        if let inflater {
            inflater.reset()
            return inflater
        }
        let fresh = try Inflater()
        inflater = fresh
        return fresh
    }

    /// Runs `body`; the first error it throws, completed with archive and entry, is kept and thrown again
    /// by every later call (the stream's position is unknown after a failure).
    private func guarded<R>(_ body: () throws(ZipError) -> R) throws(ZipError) -> R {
        if let failure { throw failure }
        do {
            return try body()
        } catch {
            let located = error.inArchive(name).forEntry(currentEntry?.name)
            failure = located
            throw located
        }
    }
}
