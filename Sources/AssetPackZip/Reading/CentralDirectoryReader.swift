/// Reads the central directory in bounded chunks and turns each record into a ``ZipEntry``
/// (APPNOTE 4.3.12, Zip64 values from 4.5.3). Any record it cannot parse fails the whole archive.
struct CentralDirectoryReader {
    let source: any RandomAccessSource
    let location: CentralDirectoryLocation
    let limits: ZipLimits

    private static let chunkSize = 1 << 20

    /// All entries, in central-directory order, with `dataLimit` not yet set. Records are read until the
    /// directory's declared size is used up; their number must then match the end record's count (modulo
    /// 65,536 when that count is the plain end record's 16-bit field, which old writers let wrap).
    func readEntries() throws(ZipError) -> [ZipEntry] {
        try checkEntryLimit(location.entryCount)
        var entries: [ZipEntry] = []
        // A count is cheap to forge: never reserve more than the directory's bytes can hold.
        entries.reserveCapacity(Int(min(location.entryCount, location.size / UInt64(FormatLimit.centralHeaderSize))))
        var buffer: [UInt8] = []
        var bufferStart = location.offset  // absolute offset of buffer[0]
        var position = location.offset
        let end = location.offset + location.size
        var totalUncompressed: UInt64 = 0
        while position < end {
            if countIsComplete(entries.count),
               try !startsRecord(position, buffer: &buffer, bufferStart: &bufferStart, end: end) { break }
            try checkEntryLimit(UInt64(entries.count + 1))
            // Make sure the whole record is in the buffer; records are at most 46 + 3 × 65,535 bytes.
            let recordLength = try recordSize(at: position, buffer: &buffer, bufferStart: &bufferStart, end: end)
            let start = Int(position - bufferStart)
            var cursor = ByteCursor(buffer, position: start, end: start + recordLength)
            guard let (header, nameLength, extraLength, _) = CentralDirectoryHeader.parseFixed(&cursor) else {
                throw ZipError(.format, "central directory record \(entries.count) is malformed", archive: source.name, offset: position)
            }
            let nameStart = start + FormatLimit.centralHeaderSize
            let record = Record(bytes: buffer, name: nameStart..<(nameStart + nameLength),
                                extra: (nameStart + nameLength)..<(nameStart + nameLength + extraLength))
            let entry = try makeEntry(header, record, index: entries.count, at: position)
            totalUncompressed = try addToTotal(totalUncompressed, entry)
            entries.append(entry)
            position += UInt64(recordLength)
        }
        guard countIsComplete(entries.count) else {
            throw ZipError(.format, "end record counts \(location.entryCount) entries, but the central directory holds \(entries.count)",
                           archive: source.name, offset: location.offset)
        }
        return entries
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
        let length = Int(min(UInt64(max(Self.chunkSize, count)), end - position))
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
