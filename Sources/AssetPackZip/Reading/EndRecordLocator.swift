/// Where the central directory is, as read from the end of an archive (APPNOTE 4.3.14–4.3.16).
struct CentralDirectoryLocation {
    /// Absolute offset of the first central header.
    var offset: UInt64
    /// Size in bytes of the central directory.
    var size: UInt64
    /// Number of entries.
    var entryCount: UInt64
    /// True when ``entryCount`` is the plain end record's 16-bit field, which old writers let wrap past
    /// 65,535; false when it comes from the Zip64 end record.
    var countMayWrap: Bool
    /// Bytes in front of the archive (a self-extractor stub) that the stored offsets do not count.
    var prefix: UInt64
    /// The archive comment.
    var comment: [UInt8]
}

/// Finds the end of central directory record in the last 65,557 bytes, follows the Zip64 locator,
/// and works out where the central directory really starts.
enum EndRecordLocator {
    static func locate(in source: any RandomAccessSource) throws(ZipError) -> CentralDirectoryLocation {
        let size = source.size
        guard size >= UInt64(FormatLimit.endRecordSize) else {
            throw ZipError(.format, "not a zip archive: \(size) bytes is too short for an end record", archive: source.name)
        }
        let window = min(size, UInt64(FormatLimit.endRecordSearchWindow))
        let tail = try source.readBytes(Int(window), at: size - window)
        guard let (position, record) = findEndRecord(tail) else {
            throw ZipError(.format, "not a zip archive: no end of central directory record in the last \(window) bytes",
                           archive: source.name)
        }
        let endOffset = size - window + UInt64(position)
        if record.diskNumber != 0 || record.centralDirectoryDisk != 0 && record.centralDirectoryDisk != FormatLimit.max16 {
            throw ZipError(.unsupportedFeature, "multi-disk (split or spanned) archives are not supported",
                           archive: source.name, offset: endOffset)
        }
        let zip64 = try readZip64(source, endOffset: endOffset, tail: tail, tailStart: size - window)
        try checkCounts(record, zip64: zip64?.record, archive: source.name, offset: endOffset)
        if let zip64 {
            return try resolve(source, declaredOffset: zip64.record.centralDirectoryOffset,
                               size: zip64.record.centralDirectorySize, count: zip64.record.totalEntries,
                               countMayWrap: false, endOfDirectory: zip64.position, comment: record.comment)
        }
        if record.totalEntries == FormatLimit.max16 && record.centralDirectoryOffset == FormatLimit.max32 {
            throw ZipError(.format, "end record points to a Zip64 record, but there is no Zip64 locator",
                           archive: source.name, offset: endOffset)
        }
        return try resolve(source, declaredOffset: plainDirectoryOffset(record, endOffset: endOffset),
                           size: UInt64(record.centralDirectorySize), count: UInt64(record.totalEntries),
                           countMayWrap: true, endOfDirectory: endOffset, comment: record.comment)
    }

    /// The directory offset of a plain end record. Info-ZIP `zip -fz` writing to a pipe stores 0xFFFFFFFF
    /// ("see Zip64") but no Zip64 records; the directory then starts where its size says it must.
    private static func plainDirectoryOffset(_ record: EndOfCentralDirectory, endOffset: UInt64) -> UInt64 {
        let size = UInt64(record.centralDirectorySize)
        guard record.centralDirectoryOffset == FormatLimit.max32, size <= endOffset else {
            return UInt64(record.centralDirectoryOffset)
        }
        return endOffset - size
    }

    /// The end record whose comment reaches exactly to the end of the file (the one furthest from the end if
    /// several do: a later one belongs to an archive hidden in its comment); failing that, the one closest to
    /// the end whose comment fits (bytes appended after the archive); failing that, the one closest to the end
    /// whose comment runs past the end of the file, as Info-ZIP's `unzip`, libarchive and Python's `zipfile` take.
    static func findEndRecord(_ tail: [UInt8]) -> (Int, EndOfCentralDirectory)? {
        var exact: (Int, EndOfCentralDirectory)?
        var fallback: (Int, EndOfCentralDirectory)?
        var overrun: (Int, EndOfCentralDirectory)?
        var index = tail.count - FormatLimit.endRecordSize
        while index >= 0 {
            if tail[index] == 0x50, tail[index + 1] == 0x4b, tail[index + 2] == 0x05, tail[index + 3] == 0x06 {
                var cursor = ByteCursor(tail, position: index)
                if let record = EndOfCentralDirectory.parse(&cursor) {
                    let commentLength = Int(tail[index + 20]) | Int(tail[index + 21]) << 8
                    let room = tail.count - index - FormatLimit.endRecordSize
                    if commentLength == room {
                        exact = (index, record)
                    } else if commentLength < room {
                        if fallback == nil { fallback = (index, record) }
                    } else if overrun == nil {
                        overrun = (index, record)
                    }
                }
            }
            index -= 1
        }
        return exact ?? fallback ?? overrun
    }

    /// Reads the Zip64 end record when a locator stands right before the end record. The locator must point
    /// at a Zip64 end record inside the file, before the locator; the one exception is an archive behind a
    /// prefix (a self-extractor stub) whose offsets do not count it: the record then stands right before the
    /// locator, and its own directory offset and size must put the directory's end exactly there.
    private static func readZip64(_ source: any RandomAccessSource, endOffset: UInt64, tail: [UInt8],
                                  tailStart: UInt64) throws(ZipError) -> (record: Zip64EndOfCentralDirectory, position: UInt64)? {
        guard endOffset >= UInt64(FormatLimit.zip64LocatorSize) else { return nil }
        let locatorOffset = endOffset - UInt64(FormatLimit.zip64LocatorSize)
        var cursor = ByteCursor(try source.readBytes(FormatLimit.zip64LocatorSize, at: locatorOffset))
        guard let locator = Zip64Locator.parse(&cursor) else { return nil }
        if locator.totalDisks > 1 || locator.endRecordDisk != 0 {
            throw ZipError(.unsupportedFeature, "multi-disk (split or spanned) Zip64 archives are not supported",
                           archive: source.name, offset: locatorOffset)
        }
        let minimal = UInt64(FormatLimit.zip64EndRecordSize)
        let stored = locator.endRecordOffset
        if locatorOffset >= minimal, stored <= locatorOffset - minimal,
           let record = try zip64Record(at: stored, in: source) {
            return (record, stored)
        }
        if locatorOffset >= minimal, stored < locatorOffset - minimal,
           let record = try zip64Record(at: locatorOffset - minimal, in: source),
           record.centralDirectorySize <= stored, stored - record.centralDirectorySize == record.centralDirectoryOffset {
            return (record, locatorOffset - minimal)
        }
        throw ZipError(.format, "Zip64 locator points to \(stored), where there is no Zip64 end record",
                       archive: source.name, offset: locatorOffset)
    }

    /// The Zip64 end record at `offset`, or nil when there is none; its two entry counts must agree.
    private static func zip64Record(at offset: UInt64,
                                    in source: any RandomAccessSource) throws(ZipError) -> Zip64EndOfCentralDirectory? {
        var cursor = ByteCursor(try source.readBytes(FormatLimit.zip64EndRecordSize, at: offset))
        guard let record = Zip64EndOfCentralDirectory.parse(&cursor) else { return nil }
        if record.diskNumber != 0 || record.centralDirectoryDisk != 0 {
            throw ZipError(.unsupportedFeature, "multi-disk (split or spanned) Zip64 archives are not supported",
                           archive: source.name, offset: offset)
        }
        guard record.entriesOnDisk == record.totalEntries else {
            throw ZipError(.format, "Zip64 end record counts \(record.entriesOnDisk) entries on its disk but "
                           + "\(record.totalEntries) in all", archive: source.name, offset: offset)
        }
        return record
    }

    /// The plain end record's counts must agree with each other, and with the Zip64 end record's count
    /// unless they say "see Zip64" (0xFFFF), as `unzip` requires.
    private static func checkCounts(_ record: EndOfCentralDirectory, zip64: Zip64EndOfCentralDirectory?,
                                    archive: String?, offset: UInt64) throws(ZipError) {
        guard record.entriesOnDisk == record.totalEntries else {
            throw ZipError(.format, "end record counts \(record.entriesOnDisk) entries on its disk but \(record.totalEntries) in all",
                           archive: archive, offset: offset)
        }
        if let zip64, record.totalEntries != FormatLimit.max16, UInt64(record.totalEntries) != zip64.totalEntries {
            throw ZipError(.format, "end record counts \(record.totalEntries) entries but the Zip64 end record "
                           + "\(zip64.totalEntries)", archive: archive, offset: offset)
        }
    }

    /// Checks the declared directory against the file and finds the prefix: the central directory ends
    /// where the end record (or Zip64 end record) begins, so it starts `size` bytes before that.
    private static func resolve(_ source: any RandomAccessSource, declaredOffset: UInt64, size: UInt64, count: UInt64,
                                countMayWrap: Bool, endOfDirectory: UInt64,
                                comment: [UInt8]) throws(ZipError) -> CentralDirectoryLocation {
        guard size <= endOfDirectory else {
            throw ZipError(.format, "central directory size \(size) is larger than the \(endOfDirectory) bytes before the end record",
                           archive: source.name, offset: endOfDirectory)
        }
        guard count <= size / UInt64(FormatLimit.centralHeaderSize) else {
            throw ZipError(.format, "central directory claims \(count) entries, but its \(size) bytes cannot hold them",
                           archive: source.name, offset: endOfDirectory)
        }
        let actualStart = endOfDirectory - size
        guard declaredOffset <= actualStart else {
            throw ZipError(.format, "central directory offset \(declaredOffset) is past where it can start (\(actualStart))",
                           archive: source.name, offset: endOfDirectory)
        }
        var prefix = actualStart - declaredOffset
        if prefix > 0, count > 0, try signature(at: declaredOffset, in: source) == Signature.centralDirectoryHeader {
            // Offsets were adjusted for the prefix (zip -A), and something else sits between directory and end.
            prefix = 0
        }
        return CentralDirectoryLocation(offset: declaredOffset + prefix, size: size, entryCount: count,
                                        countMayWrap: countMayWrap, prefix: prefix, comment: comment)
    }

    private static func signature(at offset: UInt64, in source: any RandomAccessSource) throws(ZipError) -> UInt32? {
        guard offset + 4 <= source.size else { return nil }
        var cursor = ByteCursor(try source.readBytes(4, at: offset))
        return cursor.read(UInt32.self)
    }
}
