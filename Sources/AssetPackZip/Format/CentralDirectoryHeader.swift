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
        guard let fixed = parseFixed(&cursor),
              let name = cursor.readBytes(fixed.nameLength), let extra = cursor.readBytes(fixed.extraLength),
              let comment = cursor.readBytes(fixed.commentLength)
        else { return nil }
        var header = fixed.header
        header.name = name
        header.extra = extra
        header.comment = comment
        return header
    }

    /// Parses the fixed part (46 bytes) only; the name, extra field and comment lengths are returned for
    /// the caller to take the variable part where it lies (``CentralDirectoryReader`` reads it in place).
    static func parseFixed(_ cursor: inout ByteCursor)
        -> (header: CentralDirectoryHeader, nameLength: Int, extraLength: Int, commentLength: Int)? {
        guard cursor.read(UInt32.self) == Signature.centralDirectoryHeader,
              let madeBy = cursor.read(UInt16.self), let fields = EntryFields.parse(&cursor),
              let nameLength = cursor.read(UInt16.self), let extraLength = cursor.read(UInt16.self), let commentLength = cursor.read(UInt16.self),
              let disk = cursor.read(UInt16.self), let internalAttrs = cursor.read(UInt16.self),
              let external = cursor.read(UInt32.self), let offset = cursor.read(UInt32.self)
        else { return nil }
        let header = CentralDirectoryHeader(
            versionMadeBy: madeBy, fields: fields, diskNumberStart: disk, internalAttributes: internalAttrs, externalAttributes: external,
            localHeaderOffset: offset, name: [], extra: [], comment: [])
        return (header, Int(nameLength), Int(extraLength), Int(commentLength))
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
