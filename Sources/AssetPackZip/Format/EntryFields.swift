/// The fields a local file header (APPNOTE 4.3.7) and a central directory header (4.3.12) share, stored in
/// the same order in both: version needed to extract, general purpose flags, method, DOS time and date,
/// CRC-32 and the two 32-bit sizes (`0xFFFFFFFF` when the Zip64 extra field holds the real value).
/// Both headers reach them as their own properties (`header.crc32`).
struct EntryFields: Equatable {
    var versionNeeded: UInt16
    var flags: UInt16
    var method: UInt16
    var dosTime: UInt16
    var dosDate: UInt16
    var crc32: UInt32
    var compressedSize: UInt32
    var uncompressedSize: UInt32

    /// Reads the eight fields (26 bytes); nil when the bytes run out.
    static func parse(_ cursor: inout ByteCursor) -> EntryFields? {
        guard let needed = cursor.read(UInt16.self), let flags = cursor.read(UInt16.self),
              let method = cursor.read(UInt16.self), let time = cursor.read(UInt16.self),
              let date = cursor.read(UInt16.self), let crc = cursor.read(UInt32.self),
              let compressed = cursor.read(UInt32.self), let uncompressed = cursor.read(UInt32.self)
        else { return nil }
        return EntryFields(versionNeeded: needed, flags: flags, method: method, dosTime: time, dosDate: date,
                           crc32: crc, compressedSize: compressed, uncompressedSize: uncompressed)
    }

    /// Writes the eight fields.
    func encode(into writer: inout ByteWriter) {
        writer.write(versionNeeded)
        writer.write(flags)
        writer.write(method)
        writer.write(dosTime)
        writer.write(dosDate)
        writer.write(crc32)
        writer.write(compressedSize)
        writer.write(uncompressedSize)
    }
}
