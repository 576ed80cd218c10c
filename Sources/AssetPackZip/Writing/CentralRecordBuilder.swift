/// Builds central directory headers (APPNOTE 4.3.12) and the end records (4.3.14–4.3.16) for the writer.
enum CentralRecordBuilder {
    /// "Made by" Unix (3), spec version 6.3.
    static let versionMadeBy: UInt16 = 3 << 8 | 63

    /// An extra field that says nothing (`zipalign`'s padding for an alignment of 1), given to the central
    /// record of a UTF-8 name whose local header has an extra field: Info-ZIP `unzip` converts a name while it
    /// reads a header's extra field, so in a non-UTF-8 locale it otherwise warns "mismatching local filename".
    static let utf8NameCompanion: [UInt8] = {
        var field = ByteWriter()
        ExtraField.append(id: ExtraFieldID.alignmentPadding, data: [1, 0], to: &field)
        return field.bytes
    }()

    static func record(for local: LocalFileHeader, mode: UInt32, dosDirectory: Bool, uncompressed: UInt64,
                       compressed: UInt64, offset: UInt64) -> CentralDirectoryHeader {
        let zip64 = Zip64ExtraField(
            uncompressedSize: uncompressed >= UInt64(FormatLimit.max32) ? uncompressed : nil,
            compressedSize: compressed >= UInt64(FormatLimit.max32) ? compressed : nil,
            localHeaderOffset: offset >= UInt64(FormatLimit.max32) ? offset : nil)
        var extra = ByteWriter()
        let needsZip64 = zip64 != Zip64ExtraField()
        if needsZip64 { ExtraField.append(id: ExtraFieldID.zip64, data: zip64.encoded, to: &extra) }
        if extra.bytes.isEmpty, !local.extra.isEmpty, local.fields.flags & GeneralPurposeFlag.utf8 != 0 {
            extra.write(Self.utf8NameCompanion)
        }
        var fields = local.fields
        if needsZip64 { fields.versionNeeded = 45 }
        fields.compressedSize = zip64.compressedSize == nil ? UInt32(compressed) : FormatLimit.max32
        fields.uncompressedSize = zip64.uncompressedSize == nil ? UInt32(uncompressed) : FormatLimit.max32
        return CentralDirectoryHeader(
            versionMadeBy: versionMadeBy, fields: fields, diskNumberStart: 0, internalAttributes: 0,
            externalAttributes: mode << 16 | (dosDirectory ? 0x10 : 0),
            localHeaderOffset: zip64.localHeaderOffset == nil ? UInt32(offset) : FormatLimit.max32,
            name: local.name, extra: extra.bytes, comment: [])
    }
}

/// The records after the central directory: Zip64 end record and locator when needed, then the end record.
struct EndRecords {
    var entryCount: UInt64
    var directoryOffset: UInt64
    var directorySize: UInt64
    /// Where these records start (right after the central directory).
    var endOffset: UInt64
    var comment: [UInt8]

    var needsZip64: Bool {
        entryCount >= UInt64(FormatLimit.max16) || directoryOffset >= UInt64(FormatLimit.max32)
            || directorySize >= UInt64(FormatLimit.max32)
    }

    func encode(into writer: inout ByteWriter) {
        if needsZip64 {
            Zip64EndOfCentralDirectory(
                versionMadeBy: CentralRecordBuilder.versionMadeBy, versionNeeded: 45, diskNumber: 0, centralDirectoryDisk: 0,
                entriesOnDisk: entryCount, totalEntries: entryCount, centralDirectorySize: directorySize,
                centralDirectoryOffset: directoryOffset).encode(into: &writer)
            Zip64Locator(endRecordDisk: 0, endRecordOffset: endOffset, totalDisks: 1).encode(into: &writer)
        }
        let count16 = entryCount >= UInt64(FormatLimit.max16) ? FormatLimit.max16 : UInt16(entryCount)
        EndOfCentralDirectory(
            diskNumber: 0, centralDirectoryDisk: 0, entriesOnDisk: count16, totalEntries: count16,
            centralDirectorySize: directorySize >= UInt64(FormatLimit.max32) ? FormatLimit.max32 : UInt32(directorySize),
            centralDirectoryOffset: directoryOffset >= UInt64(FormatLimit.max32) ? FormatLimit.max32 : UInt32(directoryOffset),
            comment: comment).encode(into: &writer)
    }
}
