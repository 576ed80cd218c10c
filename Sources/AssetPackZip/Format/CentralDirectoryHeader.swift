/// A central directory file header (APPNOTE 4.3.12): the authoritative description of one entry.
struct CentralDirectoryHeader: SharedFieldsRecord, Equatable {
    var versionMadeBy: UInt16
    /// The fields it shares with the local header.
    var fields: EntryFields
    var diskNumberStart: UInt16
    var internalAttributes: UInt16
    var externalAttributes: UInt32
    var localHeaderOffset: UInt32
    var name: [UInt8]
    var extra: [UInt8]
    var comment: [UInt8]

    /// The size of the whole record.
    var encodedSize: Int { FormatLimit.centralHeaderSize + name.count + extra.count + comment.count }

    /// Parses one whole record (fixed part, name, extra, comment); nil when the bytes are too short or
    /// the signature is wrong.
    static func parse(_ cursor: inout ByteCursor) -> CentralDirectoryHeader? {
        guard cursor.read(UInt32.self) == Signature.centralDirectoryHeader,
              let madeBy = cursor.read(UInt16.self), let fields = EntryFields.parse(&cursor),
              let nameLength = cursor.read(UInt16.self), let extraLength = cursor.read(UInt16.self), let commentLength = cursor.read(UInt16.self),
              let disk = cursor.read(UInt16.self), let internalAttrs = cursor.read(UInt16.self),
              let external = cursor.read(UInt32.self), let offset = cursor.read(UInt32.self),
              let name = cursor.readBytes(Int(nameLength)), let extra = cursor.readBytes(Int(extraLength)),
              let comment = cursor.readBytes(Int(commentLength))
        else { return nil }
        return CentralDirectoryHeader(
            versionMadeBy: madeBy, fields: fields, diskNumberStart: disk, internalAttributes: internalAttrs, externalAttributes: external,
            localHeaderOffset: offset, name: name, extra: extra, comment: comment)
    }

    /// Serializes the record.
    func encode(into writer: inout ByteWriter) {
        writer.write(Signature.centralDirectoryHeader)
        writer.write(versionMadeBy)
        fields.encode(into: &writer)
        writer.write(UInt16(name.count))
        writer.write(UInt16(extra.count))
        writer.write(UInt16(comment.count))
        writer.write(diskNumberStart)
        writer.write(internalAttributes)
        writer.write(externalAttributes)
        writer.write(localHeaderOffset)
        writer.write(name)
        writer.write(extra)
        writer.write(comment)
    }
}
