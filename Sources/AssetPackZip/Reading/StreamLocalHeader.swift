/// Reads a local file header (APPNOTE 4.3.7) from a ``StreamInput`` for ``ZipStreamReader``, and decides
/// whether and how the entry's data can be read without the central directory.
enum StreamLocalHeader {
    /// Reads the header at the input's position (its signature already checked) and the name and extra
    /// field after it. The input is left at the start of the entry's data.
    static func read(from input: StreamInput) throws(ZipError) -> (entry: ZipStreamEntry, header: LocalFileHeader) {
        let headerOffset = input.offset
        guard try input.require(FormatLimit.localHeaderSize) else {
            throw ZipError(.truncated, "archive ends inside a local header", offset: headerOffset)
        }
        var cursor = ByteCursor(Array(input.buffered.prefix(FormatLimit.localHeaderSize)))
        guard let fixed = LocalFileHeader.parseFixed(&cursor) else {
            throw ZipError(.format, "local header is malformed", offset: headerOffset)
        }
        input.consume(FormatLimit.localHeaderSize)
        guard let name = try input.readBytes(fixed.nameLength), let extra = try input.readBytes(fixed.extraLength) else {
            throw ZipError(.truncated, "archive ends inside a local header", offset: headerOffset)
        }
        var header = fixed.header
        header.name = name
        header.extra = extra
        let entry = ZipStreamEntry(
            name: EntryName.decode(name, flags: header.flags, extra: extra), rawName: name,
            method: CompressionMethod(rawValue: header.method), flags: header.flags,
            modified: DOSDateTime(time: header.dosTime, date: header.dosDate), localHeaderOffset: headerOffset, extra: extra)
        return (entry, header)
    }

    /// Where the entry's data ends, or why it cannot be read front to back. A stored entry with a data
    /// descriptor can only be read when it is empty and the descriptor follows the header at once (as
    /// Info-ZIP writes empty files to a pipe); that descriptor is consumed here.
    static func dataLength(of entry: ZipStreamEntry, header: LocalFileHeader,
                           input: StreamInput) throws(ZipError) -> StreamEntryData.Length {
        try ZipEntry.checkReadable(isEncrypted: entry.isEncrypted, flags: entry.flags, method: entry.method,
                                   offset: entry.localHeaderOffset)
        guard entry.hasDataDescriptor else { return .declared(try declaredValues(header, entry: entry)) }
        if entry.method == .deflate { return .descriptor(zip64: entry.hasZip64Field) }
        guard try consumeEmptyDescriptor(from: input) else {
            throw ZipError(.needsRandomAccess, "stored entry has a data descriptor, so its end can only be found "
                           + "through the central directory; read this archive with ZipArchive", offset: entry.localHeaderOffset)
        }
        return .declared(DataDescriptor(crc32: 0, compressedSize: 0, uncompressedSize: 0))
    }

    /// CRC-32 and sizes from the header, with Zip64 values applied (``LocalFileHeader/declaredSizes(extra:)``).
    private static func declaredValues(_ header: LocalFileHeader, entry: ZipStreamEntry) throws(ZipError) -> DataDescriptor {
        guard let (compressed, uncompressed) = header.declaredSizes(extra: header.extra) else {
            throw ZipError(.format, "local header needs a Zip64 extra field that is missing or too short",
                           offset: entry.localHeaderOffset)
        }
        if entry.method == .stored && compressed != uncompressed {
            throw ZipError(.sizeMismatch, "stored entry declares \(compressed) bytes stored but "
                           + "\(uncompressed) bytes of data", offset: entry.localHeaderOffset)
        }
        return DataDescriptor(crc32: header.crc32, compressedSize: compressed, uncompressedSize: uncompressed)
    }

    /// Consumes a signed, all-zero data descriptor right at the input's position when a record follows it.
    private static func consumeEmptyDescriptor(from input: StreamInput) throws(ZipError) -> Bool {
        _ = try input.require(DataDescriptor.lookahead)
        let window = Array(input.buffered.prefix(DataDescriptor.lookahead))
        let empty = DataDescriptor(crc32: 0, compressedSize: 0, uncompressedSize: 0)
        guard let (descriptor, layout) = DataDescriptor.find(in: window, zip64: false, expecting: empty),
              descriptor == empty, layout.signed, DataDescriptor.recordFollows(window, at: layout.length)
        else {
            guard window.count >= DataDescriptor.lookahead else {
                throw ZipError(.truncated, "archive ends inside the entry's data", offset: input.offset)
            }
            return false
        }
        input.consume(layout.length)
        return true
    }
}
