/// Reads an entry's local header (APPNOTE 4.3.7) and checks it against the central header: same name and
/// method, and — when there is no data descriptor — same CRC-32 and sizes. Returns where the data starts.
/// One `pread` covers the header unless its extra field passes ``extraAllowance`` bytes.
enum LocalHeaderCheck {
    /// Extra-field bytes read together with the fixed part and the name (Info-ZIP writes 28 or fewer).
    static let extraAllowance = 128

    static func dataOffset(of entry: ZipEntry, in source: any RandomAccessSource) throws(ZipError) -> UInt64 {
        try checkFixedPartFits(entry, in: source)
        let head = try source.readBytes(headerSpan(of: entry, in: source), at: entry.localHeaderOffset)
        return try dataOffset(of: entry, in: source, head: head)
    }

    /// How many bytes to read at the local header so that one read covers the header (and `dataBytes`
    /// more), never past the end of `source`. At least the fixed part when ``checkFixedPartFits(_:in:)`` passed.
    static func headerSpan(of entry: ZipEntry, in source: any RandomAccessSource, dataBytes: UInt64 = 0) -> Int {
        let wanted = UInt64(FormatLimit.localHeaderSize + entry.rawNameCount + extraAllowance) + dataBytes
        return Int(min(wanted, source.size - min(source.size, entry.localHeaderOffset)))
    }

    /// Throws ``ZipError/Code/truncated`` when the source ends before the local header's fixed part does.
    static func checkFixedPartFits(_ entry: ZipEntry, in source: any RandomAccessSource) throws(ZipError) {
        guard entry.localHeaderOffset + UInt64(FormatLimit.localHeaderSize) <= source.size else {
            throw ZipError(.truncated, "archive ends before the local header", archive: source.name, entry: entry.name,
                           offset: entry.localHeaderOffset)
        }
    }

    /// ``dataOffset(of:in:)`` from `head`, the bytes already read at the local header's offset (at least
    /// its fixed part); the rest of the header is read only when `head` does not hold it.
    static func dataOffset(of entry: ZipEntry, in source: any RandomAccessSource, head: [UInt8]) throws(ZipError) -> UInt64 {
        func fail(_ code: ZipError.Code, _ message: String) -> ZipError {
            ZipError(code, message, archive: source.name, entry: entry.name, offset: entry.localHeaderOffset)
        }
        var cursor = ByteCursor(head)
        guard let (header, nameLength, extraLength) = LocalFileHeader.parseFixed(&cursor) else {
            throw fail(.format, "no local header signature where the central directory says the entry starts")
        }
        let variableStart = entry.localHeaderOffset + UInt64(FormatLimit.localHeaderSize)
        let dataStart = variableStart + UInt64(nameLength + extraLength)
        guard dataStart <= entry.dataLimit else {
            throw fail(.overlap, "local header runs into the next entry")
        }
        let variableEnd = FormatLimit.localHeaderSize + nameLength + extraLength
        let variable = variableEnd <= head.count ? head[FormatLimit.localHeaderSize..<variableEnd]
            : try source.readBytes(nameLength + extraLength, at: variableStart)[...]
        let name = variable.prefix(nameLength)
        guard entry.hasRawName(name) else {
            throw fail(.headerMismatch, "local header names \"\(EntryName.decode(Array(name), flags: header.flags, extra: []))\"")
        }
        guard header.method == entry.method.rawValue else {
            throw fail(.headerMismatch, "local header says method \(CompressionMethod(rawValue: header.method)), central directory says \(entry.method)")
        }
        if header.flags & GeneralPurposeFlag.dataDescriptor == 0 {
            try compareSizes(header, extra: variable.dropFirst(nameLength), entry: entry, fail: fail)
        }
        let dataEnd = dataStart + entry.compressedSize
        guard dataEnd <= source.size else { throw fail(.truncated, "archive ends inside the entry's data") }
        guard dataEnd <= entry.dataLimit else { throw fail(.overlap, "entry's data overlaps the next entry") }
        return dataStart
    }

    private static func compareSizes(_ header: LocalFileHeader, extra: ArraySlice<UInt8>, entry: ZipEntry,
                                     fail: (ZipError.Code, String) -> ZipError) throws(ZipError) {
        guard let (compressed, uncompressed) = header.declaredSizes(extra: Array(extra)) else {
            throw fail(.format, "local header needs a Zip64 extra field that is missing or too short")
        }
        guard header.crc32 == entry.crc32 else {
            throw fail(.headerMismatch, "local header CRC-32 \(hex(header.crc32)) differs from the central directory's \(hex(entry.crc32))")
        }
        guard compressed == entry.compressedSize, uncompressed == entry.uncompressedSize else {
            throw fail(.headerMismatch, "local header sizes \(compressed)/\(uncompressed) differ from the central directory's \(entry.compressedSize)/\(entry.uncompressedSize)")
        }
    }
}
