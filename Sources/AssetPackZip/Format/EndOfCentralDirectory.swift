/// The end of central directory record (APPNOTE 4.3.16), with its Zip64 counterparts.
struct EndOfCentralDirectory: Equatable {
    var diskNumber: UInt16
    var centralDirectoryDisk: UInt16
    var entriesOnDisk: UInt16
    var totalEntries: UInt16
    var centralDirectorySize: UInt32
    var centralDirectoryOffset: UInt32
    var comment: [UInt8]

    /// Parses the record at the cursor (signature included).
    static func parse(_ cursor: inout ByteCursor) -> EndOfCentralDirectory? {
        guard cursor.read(UInt32.self) == Signature.endOfCentralDirectory,
              let disk = cursor.read(UInt16.self), let cdDisk = cursor.read(UInt16.self),
              let onDisk = cursor.read(UInt16.self), let total = cursor.read(UInt16.self),
              let size = cursor.read(UInt32.self), let offset = cursor.read(UInt32.self),
              let commentLength = cursor.read(UInt16.self)
        else { return nil }
        // A comment that runs past the end of the file is tolerated (some tools miscount); take what is there.
        let comment = cursor.readBytes(min(Int(commentLength), cursor.remaining)) ?? []
        return EndOfCentralDirectory(
            diskNumber: disk, centralDirectoryDisk: cdDisk, entriesOnDisk: onDisk, totalEntries: total,
            centralDirectorySize: size, centralDirectoryOffset: offset, comment: comment)
    }

    /// True when any field says "see the Zip64 record".
    var needsZip64: Bool {
        totalEntries == FormatLimit.max16 || entriesOnDisk == FormatLimit.max16
            || centralDirectorySize == FormatLimit.max32 || centralDirectoryOffset == FormatLimit.max32
    }

    /// Serializes the record.
    func encode(into writer: inout ByteWriter) {
        writer.write(Signature.endOfCentralDirectory)
        writer.write(diskNumber)
        writer.write(centralDirectoryDisk)
        writer.write(entriesOnDisk)
        writer.write(totalEntries)
        writer.write(centralDirectorySize)
        writer.write(centralDirectoryOffset)
        writer.write(UInt16(comment.count))
        writer.write(comment)
    }
}

/// The Zip64 end of central directory locator (APPNOTE 4.3.15): 20 bytes right before the end record.
struct Zip64Locator: Equatable {
    var endRecordDisk: UInt32
    var endRecordOffset: UInt64
    var totalDisks: UInt32

    static func parse(_ cursor: inout ByteCursor) -> Zip64Locator? {
        guard cursor.read(UInt32.self) == Signature.zip64Locator,
              let disk = cursor.read(UInt32.self), let offset = cursor.read(UInt64.self),
              let disks = cursor.read(UInt32.self)
        else { return nil }
        return Zip64Locator(endRecordDisk: disk, endRecordOffset: offset, totalDisks: disks)
    }

    func encode(into writer: inout ByteWriter) {
        writer.write(Signature.zip64Locator)
        writer.write(endRecordDisk)
        writer.write(endRecordOffset)
        writer.write(totalDisks)
    }
}

/// The Zip64 end of central directory record (APPNOTE 4.3.14), version 1; extensible data is skipped.
struct Zip64EndOfCentralDirectory: Equatable {
    var versionMadeBy: UInt16
    var versionNeeded: UInt16
    var diskNumber: UInt32
    var centralDirectoryDisk: UInt32
    var entriesOnDisk: UInt64
    var totalEntries: UInt64
    var centralDirectorySize: UInt64
    var centralDirectoryOffset: UInt64

    static func parse(_ cursor: inout ByteCursor) -> Zip64EndOfCentralDirectory? {
        guard cursor.read(UInt32.self) == Signature.zip64EndOfCentralDirectory,
              let recordSize = cursor.read(UInt64.self), recordSize >= 44,
              let madeBy = cursor.read(UInt16.self), let needed = cursor.read(UInt16.self),
              let disk = cursor.read(UInt32.self), let cdDisk = cursor.read(UInt32.self),
              let onDisk = cursor.read(UInt64.self), let total = cursor.read(UInt64.self),
              let size = cursor.read(UInt64.self), let offset = cursor.read(UInt64.self)
        else { return nil }
        return Zip64EndOfCentralDirectory(
            versionMadeBy: madeBy, versionNeeded: needed, diskNumber: disk, centralDirectoryDisk: cdDisk,
            entriesOnDisk: onDisk, totalEntries: total, centralDirectorySize: size,
            centralDirectoryOffset: offset)
    }

    func encode(into writer: inout ByteWriter) {
        writer.write(Signature.zip64EndOfCentralDirectory)
        writer.write(UInt64(FormatLimit.zip64EndRecordSize - 12))
        writer.write(versionMadeBy)
        writer.write(versionNeeded)
        writer.write(diskNumber)
        writer.write(centralDirectoryDisk)
        writer.write(entriesOnDisk)
        writer.write(totalEntries)
        writer.write(centralDirectorySize)
        writer.write(centralDirectoryOffset)
    }
}
