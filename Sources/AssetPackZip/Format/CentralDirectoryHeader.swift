/// A central directory file header (APPNOTE 4.3.12): the authoritative description of one entry.
struct CentralDirectoryHeader: Equatable {
    var versionMadeBy: UInt16
    var versionNeeded: UInt16
    var flags: UInt16
    var method: UInt16
    var dosTime: UInt16
    var dosDate: UInt16
    var crc32: UInt32
    var compressedSize: UInt32
    var uncompressedSize: UInt32
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
              let madeBy = cursor.read(UInt16.self), let needed = cursor.read(UInt16.self),
              let flags = cursor.read(UInt16.self), let method = cursor.read(UInt16.self),
              let time = cursor.read(UInt16.self), let date = cursor.read(UInt16.self),
              let crc = cursor.read(UInt32.self), let compressed = cursor.read(UInt32.self),
              let uncompressed = cursor.read(UInt32.self), let nameLength = cursor.read(UInt16.self),
              let extraLength = cursor.read(UInt16.self), let commentLength = cursor.read(UInt16.self),
              let disk = cursor.read(UInt16.self), let internalAttrs = cursor.read(UInt16.self),
              let external = cursor.read(UInt32.self), let offset = cursor.read(UInt32.self),
              let name = cursor.readBytes(Int(nameLength)), let extra = cursor.readBytes(Int(extraLength)),
              let comment = cursor.readBytes(Int(commentLength))
        else { return nil }
        return CentralDirectoryHeader(
            versionMadeBy: madeBy, versionNeeded: needed, flags: flags, method: method, dosTime: time,
            dosDate: date, crc32: crc, compressedSize: compressed, uncompressedSize: uncompressed,
            diskNumberStart: disk, internalAttributes: internalAttrs, externalAttributes: external,
            localHeaderOffset: offset, name: name, extra: extra, comment: comment)
    }

    /// Serializes the record.
    func encode(into writer: inout ByteWriter) {
        writer.write(Signature.centralDirectoryHeader)
        writer.write(versionMadeBy)
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
