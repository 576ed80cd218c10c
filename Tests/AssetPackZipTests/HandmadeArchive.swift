import Foundation
@testable import AssetPackZip

// Archives built from the library's own record types (internal API, hence here rather than in TestSupport,
// whose `RawZip` writes every byte itself).

/// One stored entry of an archive built record by record, for names and fields no tool writes on demand.
struct HandmadeEntry {
    var name: [UInt8]
    var flags: UInt16 = 0
    var data: [UInt8] = []
    var localExtra: [UInt8] = []
    var centralExtra: [UInt8] = []
    /// Overrides for the central header's 32-bit sizes (e.g. 0xFFFFFFFF with a Zip64 field).
    var centralUncompressed: UInt32? = nil
    var centralCompressed: UInt32? = nil
    var versionMadeBy: UInt16 = 3 << 8 | 30
    var externalAttributes: UInt32 = 0o100644 << 16

    init(name: [UInt8], flags: UInt16 = 0, data: [UInt8] = [], localExtra: [UInt8] = [], centralExtra: [UInt8] = [],
         centralUncompressed: UInt32? = nil, centralCompressed: UInt32? = nil,
         versionMadeBy: UInt16 = 3 << 8 | 30, externalAttributes: UInt32 = 0o100644 << 16) {
        self.name = name
        self.flags = flags
        self.data = data
        self.localExtra = localExtra
        self.centralExtra = centralExtra
        self.centralUncompressed = centralUncompressed
        self.centralCompressed = centralCompressed
        self.versionMadeBy = versionMadeBy
        self.externalAttributes = externalAttributes
    }
}

/// An archive of stored entries built from records: local headers and data, central directory, end record.
func handmadeArchive(_ entries: [HandmadeEntry], comment: [UInt8] = []) -> [UInt8] {
    var writer = ByteWriter()
    var central: [CentralDirectoryHeader] = []
    for entry in entries {
        let crc = CRC32.checksum(entry.data)
        let size = UInt32(entry.data.count)
        let offset = UInt32(writer.bytes.count)
        LocalFileHeader(fields: EntryFields(versionNeeded: 10, flags: entry.flags, method: 0, dosTime: 0, dosDate: 0x21, crc32: crc,
                        compressedSize: size, uncompressedSize: size), name: entry.name, extra: entry.localExtra)
            .encode(into: &writer)
        writer.write(entry.data)
        central.append(CentralDirectoryHeader(
            versionMadeBy: entry.versionMadeBy, fields: EntryFields(versionNeeded: 10, flags: entry.flags, method: 0, dosTime: 0, dosDate: 0x21,
            crc32: crc, compressedSize: entry.centralCompressed ?? size, uncompressedSize: entry.centralUncompressed ?? size),
            diskNumberStart: 0, internalAttributes: 0, externalAttributes: entry.externalAttributes,
            localHeaderOffset: offset, name: entry.name, extra: entry.centralExtra, comment: []))
    }
    let directoryOffset = writer.bytes.count
    for header in central { header.encode(into: &writer) }
    EndOfCentralDirectory(diskNumber: 0, centralDirectoryDisk: 0, entriesOnDisk: UInt16(entries.count),
                          totalEntries: UInt16(entries.count), centralDirectorySize: UInt32(writer.bytes.count - directoryOffset),
                          centralDirectoryOffset: UInt32(directoryOffset), comment: comment).encode(into: &writer)
    return writer.bytes
}
