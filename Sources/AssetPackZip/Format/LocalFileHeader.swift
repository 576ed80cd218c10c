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

    /// The sizes it declares, Zip64 values applied from `extra`: in a local header the Zip64 field holds both
    /// sizes (APPNOTE 4.5.3), but one holding only those marked 0xFFFFFFFF is accepted too. Nil when a size
    /// is marked and the Zip64 field is missing or too short. `extra` is made only when a size is marked.
    func declaredSizes(extra: @autoclosure () -> [UInt8]) -> (compressed: UInt64, uncompressed: UInt64)? {
        var compressed = UInt64(fields.compressedSize), uncompressed = UInt64(fields.uncompressedSize)
        let needU = fields.uncompressedSize == FormatLimit.max32, needC = fields.compressedSize == FormatLimit.max32
        if needU || needC {
            guard let data = ExtraField.find(ExtraFieldID.zip64, in: extra()),
                  let zip64 = Zip64ExtraField.parse(data, needUncompressed: needU || data.count >= 16,
                                                    needCompressed: needC || data.count >= 16, needOffset: false, needDisk: false)
            else { return nil }
            (compressed, uncompressed) = (zip64.compressedSize ?? compressed, zip64.uncompressedSize ?? uncompressed)
        }
        return (compressed, uncompressed)
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
