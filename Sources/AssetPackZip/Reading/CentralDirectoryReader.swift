/// Reads the central directory in bounded chunks and turns each record into a ``ZipEntry``
/// (APPNOTE 4.3.12, Zip64 values from 4.5.3), one at a time (``next()``): the directory of a huge archive
/// is gone through without holding it. Any record it cannot parse fails the whole archive.
struct CentralDirectoryReader {
    let source: any RandomAccessSource
    let location: CentralDirectoryLocation
    let limits: ZipLimits

    /// Bytes read at once: a megabyte to go through the directory, a few kilobytes to look one record up.
    var readAhead = 1 << 20

    /// The bytes read last, and the absolute offset of their first.
    private var buffer: [UInt8] = []
    private var bufferStart: UInt64
    /// Where the next record starts.
    private(set) var position: UInt64
    /// Records read so far.
    private(set) var count = 0
    private var totalUncompressed: UInt64 = 0
    private var finished = false

    /// A reader of the directory at `location` of `source`, from its first record.
    init(source: any RandomAccessSource, location: CentralDirectoryLocation, limits: ZipLimits) {
        self.source = source
        self.location = location
        self.limits = limits
        self.bufferStart = location.offset
        self.position = location.offset
    }

    /// All entries, in central-directory order, with `dataLimit` not yet set.
    mutating func readEntries() throws(ZipError) -> [ZipEntry] {
        var entries: [ZipEntry] = []
        // A count is cheap to forge: never reserve more than the directory's bytes can hold.
        entries.reserveCapacity(Int(min(location.entryCount, location.size / UInt64(FormatLimit.centralHeaderSize))))
        while let entry = try next() { entries.append(entry) }
        return entries
    }

    /// The next entry, with `dataLimit` set to the central directory's offset; nil after the last. Records
    /// are read until the directory's declared size is used up; their number must then match the end
    /// record's count (modulo 65,536 when that count is the plain end record's 16-bit field, which old
    /// writers let wrap).
    mutating func next() throws(ZipError) -> ZipEntry? {
        if count == 0 { try checkEntryLimit(location.entryCount) }
        let end = location.offset + location.size
        var more = !finished && position < end
        if more && countIsComplete(count) {
            // Bytes after the last counted record are tolerated when they are not another record.
            more = try startsRecord(position, buffer: &buffer, bufferStart: &bufferStart, end: end)
        }
        if more {
            let entry = try entry(at: position, index: count)
            totalUncompressed = try addToTotal(totalUncompressed, entry)
            count += 1
            return entry
        }
        finished = true
        guard countIsComplete(count) else {
            throw ZipError(.format, "end record counts \(location.entryCount) entries, but the central directory holds \(count)",
                           archive: source.name, offset: location.offset)
        }
        return nil
    }

    /// The record at `offset` (the start of a record, as an entry's ``ZipEntry/centralHeaderOffset``
    /// says) as the entry at position `index`; the reader goes on after it.
    mutating func entry(at offset: UInt64, index: Int) throws(ZipError) -> ZipEntry {
        let end = location.offset + location.size
        try checkEntryLimit(UInt64(index + 1))
        // Make sure the whole record is in the buffer; records are at most 46 + 3 × 65,535 bytes.
        let recordLength = try recordSize(at: offset, buffer: &buffer, bufferStart: &bufferStart, end: end)
        let start = Int(offset - bufferStart)
        var cursor = ByteCursor(buffer, position: start, end: start + recordLength)
        guard let (header, nameLength, extraLength, _) = CentralDirectoryHeader.parseFixed(&cursor) else {
            throw ZipError(.format, "central directory record \(index) is malformed", archive: source.name, offset: offset)
        }
        let nameStart = start + FormatLimit.centralHeaderSize
        let record = Record(bytes: buffer, name: nameStart..<(nameStart + nameLength),
                            extra: (nameStart + nameLength)..<(nameStart + nameLength + extraLength))
        let entry = try makeEntry(header, record, index: index, at: offset)
        position = offset + UInt64(recordLength)
        return entry
    }

    private func checkEntryLimit(_ count: UInt64) throws(ZipError) {
        guard count <= UInt64(limits.maxEntries) else {
            throw ZipError(.limitExceeded, "archive has \(count) entries or more, more than the limit of \(limits.maxEntries)",
                           archive: source.name)
        }
    }

    /// True when `count` records are what the end record announced.
    private func countIsComplete(_ count: Int) -> Bool {
        location.countMayWrap ? UInt64(count) & 0xFFFF == location.entryCount : UInt64(count) == location.entryCount
    }

    /// True when the bytes at `position` are a central header signature. Bytes after the last counted
    /// record are tolerated when they are not another record.
    private func startsRecord(_ position: UInt64, buffer: inout [UInt8], bufferStart: inout UInt64,
                              end: UInt64) throws(ZipError) -> Bool {
        guard end - position >= 4 else { return false }
        try ensure(position, count: 4, buffer: &buffer, bufferStart: &bufferStart, end: end)
        var cursor = ByteCursor(buffer, position: Int(position - bufferStart))
        return cursor.read(UInt32.self) == Signature.centralDirectoryHeader
    }

    /// Adds an entry's declared size to the running total, enforcing ``ZipLimits/maxTotalUncompressedSize``.
    private func addToTotal(_ total: UInt64, _ entry: ZipEntry) throws(ZipError) -> UInt64 {
        let (sum, overflow) = total.addingReportingOverflow(entry.uncompressedSize)
        guard !overflow, sum <= limits.maxTotalUncompressedSize else {
            throw ZipError(.limitExceeded, "entries declare more than \(limits.maxTotalUncompressedSize) bytes in total",
                           archive: source.name, entry: entry.name)
        }
        return sum
    }

    /// Loads bytes so the record at `position` is complete in `buffer`; returns its length.
    private func recordSize(at position: UInt64, buffer: inout [UInt8], bufferStart: inout UInt64,
                            end: UInt64) throws(ZipError) -> Int {
        try ensure(position, count: FormatLimit.centralHeaderSize, buffer: &buffer, bufferStart: &bufferStart, end: end)
        var cursor = ByteCursor(buffer, position: Int(position - bufferStart))
        guard cursor.read(UInt32.self) == Signature.centralDirectoryHeader, cursor.skip(24),
              let nameLength = cursor.read(UInt16.self), let extraLength = cursor.read(UInt16.self),
              let commentLength = cursor.read(UInt16.self)
        else {
            throw ZipError(.format, "expected a central directory header signature", archive: source.name, offset: position)
        }
        let length = FormatLimit.centralHeaderSize + Int(nameLength) + Int(extraLength) + Int(commentLength)
        try ensure(position, count: length, buffer: &buffer, bufferStart: &bufferStart, end: end)
        return length
    }

    private func ensure(_ position: UInt64, count: Int, buffer: inout [UInt8], bufferStart: inout UInt64,
                        end: UInt64) throws(ZipError) {
        guard position + UInt64(count) <= end else {
            throw ZipError(.truncated, "central directory ends inside a record", archive: source.name, offset: position)
        }
        if position >= bufferStart, position + UInt64(count) <= bufferStart + UInt64(buffer.count) { return }
        let length = Int(min(UInt64(max(readAhead, count)), end - position))
        buffer = try source.readBytes(length, at: position)
        bufferStart = position
    }

    /// Where a record's variable parts lie in the buffer it is read from (nothing is copied out).
    private struct Record {
        let bytes: [UInt8]
        let name: Range<Int>
        let extra: Range<Int>
    }

    /// Applies Zip64 values, decodes the name, and checks the record against the archive's size.
    private func makeEntry(_ header: CentralDirectoryHeader, _ record: Record, index: Int, at offset: UInt64) throws(ZipError) -> ZipEntry {
        var uncompressed = UInt64(header.uncompressedSize)
        var compressed = UInt64(header.compressedSize)
        var localOffset = UInt64(header.localHeaderOffset)
        var disk = UInt32(header.diskNumberStart)
        var zip64Block: Range<Int>?, unicodeBlock: Range<Int>?
        let blocksFit = ExtraField.walk(record.bytes, record.extra) { id, data in
            if id == ExtraFieldID.zip64 && zip64Block == nil { zip64Block = data }
            if id == ExtraFieldID.unicodePath && unicodeBlock == nil { unicodeBlock = data }
        }
        let (name, nameIsRaw) = EntryName.decode(record.bytes, name: record.name, flags: header.flags, unicodePath: unicodeBlock)
        func fail(_ code: ZipError.Code, _ message: String) -> ZipError {
            ZipError(code, message, archive: source.name, entry: name, offset: offset)
        }
        guard blocksFit else {
            throw fail(.format, "extra field block runs past the end of the extra field")
        }
        let needU = header.uncompressedSize == FormatLimit.max32, needC = header.compressedSize == FormatLimit.max32
        let needO = header.localHeaderOffset == FormatLimit.max32, needD = header.diskNumberStart == FormatLimit.max16
        if needU || needC || needO || needD {
            guard let zip64Block,
                  let zip64 = Zip64ExtraField.parse(Array(record.bytes[zip64Block]), needUncompressed: needU, needCompressed: needC,
                                                    needOffset: needO, needDisk: needD)
            else { throw fail(.format, "header needs a Zip64 extra field that is missing or too short") }
            uncompressed = zip64.uncompressedSize ?? uncompressed
            compressed = zip64.compressedSize ?? compressed
            localOffset = zip64.localHeaderOffset ?? localOffset
            disk = zip64.diskNumberStart ?? disk
        }
        guard disk == 0 else { throw fail(.unsupportedFeature, "entry starts on disk \(disk): multi-disk archives are not supported") }
        let (absolute, overflow) = localOffset.addingReportingOverflow(location.prefix)
        let headerSize = UInt64(FormatLimit.localHeaderSize)
        guard !overflow, location.offset >= headerSize, absolute <= location.offset - headerSize else {
            throw fail(.overlap, "local header offset \(localOffset) is not before the central directory")
        }
        guard compressed <= location.offset - absolute else {
            throw fail(.overlap, "compressed size \(compressed) runs past the central directory")
        }
        if CompressionMethod(rawValue: header.method) == .stored && header.flags & GeneralPurposeFlag.encrypted == 0
            && compressed != uncompressed {
            throw fail(.sizeMismatch, "stored entry declares \(compressed) bytes stored but \(uncompressed) bytes of data")
        }
        return ZipEntry(
            index: index, name: name, rawName: nameIsRaw ? nil : Array(record.bytes[record.name]), method: CompressionMethod(rawValue: header.method),
            flags: header.flags, crc32: header.crc32, compressedSize: compressed, uncompressedSize: uncompressed,
            localHeaderOffset: absolute, centralHeaderOffset: offset, versionMadeBy: header.versionMadeBy,
            externalAttributes: header.externalAttributes,
            modified: DOSDateTime(time: header.dosTime, date: header.dosDate), dataLimit: location.offset)
    }
}
