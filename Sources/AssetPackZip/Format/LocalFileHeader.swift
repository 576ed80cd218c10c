/// A local file header (APPNOTE 4.3.7): the record in front of each entry's data.
struct LocalFileHeader: SharedFieldsRecord, Equatable {
    /// The fields it shares with the central directory header.
    var fields: EntryFields
    var name: [UInt8]
    var extra: [UInt8]

    /// The size of the whole record: fixed part, name and extra field.
    var encodedSize: Int { FormatLimit.localHeaderSize + name.count + extra.count }

    /// Parses the fixed part (30 bytes); the name and extra field lengths are returned for the caller to read.
    static func parseFixed(_ cursor: inout ByteCursor) -> (header: LocalFileHeader, nameLength: Int, extraLength: Int)? {
        guard cursor.read(UInt32.self) == Signature.localFileHeader, let fields = EntryFields.parse(&cursor),
              let nameLength = cursor.read(UInt16.self), let extraLength = cursor.read(UInt16.self)
        else { return nil }
        return (LocalFileHeader(fields: fields, name: [], extra: []), Int(nameLength), Int(extraLength))
    }

    /// Serializes the record.
    func encode(into writer: inout ByteWriter) {
        writer.write(Signature.localFileHeader)
        fields.encode(into: &writer)
        writer.write(UInt16(name.count))
        writer.write(UInt16(extra.count))
        writer.write(name)
        writer.write(extra)
    }
}
