/// A local file header (APPNOTE 4.3.7): the record in front of each entry's data.
struct LocalFileHeader: Equatable {
    var versionNeeded: UInt16
    var flags: UInt16
    var method: UInt16
    var dosTime: UInt16
    var dosDate: UInt16
    var crc32: UInt32
    var compressedSize: UInt32
    var uncompressedSize: UInt32
    var name: [UInt8]
    var extra: [UInt8]

    /// The size of the whole record: fixed part, name and extra field.
    var encodedSize: Int { FormatLimit.localHeaderSize + name.count + extra.count }

    /// Parses the fixed part (30 bytes); the name and extra field lengths are returned for the caller to read.
    static func parseFixed(_ cursor: inout ByteCursor) -> (header: LocalFileHeader, nameLength: Int, extraLength: Int)? {
        guard cursor.read(UInt32.self) == Signature.localFileHeader,
              let needed = cursor.read(UInt16.self), let flags = cursor.read(UInt16.self),
              let method = cursor.read(UInt16.self), let time = cursor.read(UInt16.self),
              let date = cursor.read(UInt16.self), let crc = cursor.read(UInt32.self),
              let compressed = cursor.read(UInt32.self), let uncompressed = cursor.read(UInt32.self),
              let nameLength = cursor.read(UInt16.self), let extraLength = cursor.read(UInt16.self)
        else { return nil }
        let header = LocalFileHeader(
            versionNeeded: needed, flags: flags, method: method, dosTime: time, dosDate: date, crc32: crc,
            compressedSize: compressed, uncompressedSize: uncompressed, name: [], extra: [])
        return (header, Int(nameLength), Int(extraLength))
    }

    /// Serializes the record.
    func encode(into writer: inout ByteWriter) {
        writer.write(Signature.localFileHeader)
        writer.write(versionNeeded)
        writer.write(flags)
        writer.write(method)
        writer.write(dosTime)
        writer.write(dosDate)
        writer.write(crc32)
        writer.write(compressedSize)
        writer.write(uncompressedSize)
        writer.write(UInt16(name.count))
        writer.write(UInt16(extra.count))
        writer.write(name)
        writer.write(extra)
    }
}
