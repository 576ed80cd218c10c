import Testing
import TestSupport
@testable import AssetPackZip

/// Wire records from literal bytes: no disk, no writer.
@Suite struct FormatTests {
    @Test func cursorReadsLittleEndianAndReturnsNilWhenShort() {
        var cursor = ByteCursor([0x50, 0x4b, 0x03, 0x04, 0x01, 0x02, 0x03])
        #expect(cursor.read(UInt32.self) == 0x0403_4b50)
        #expect(cursor.read(UInt32.self) == nil)
        #expect(cursor.position == 4, "a failed read does not move")
        #expect(cursor.read(UInt16.self) == 0x0201)
        #expect(cursor.read(UInt16.self) == nil)
        #expect(cursor.read(UInt8.self) == 0x03)
        #expect(cursor.read(UInt8.self) == nil)
        #expect(cursor.remaining == 0)

        var wide = ByteCursor([1, 2, 3, 4, 5, 6, 7, 8, 9])
        #expect(wide.read(UInt64.self) == 0x0807_0605_0403_0201)
        #expect(wide.read(UInt64.self) == nil)

        var bytes = ByteCursor([1, 2, 3])
        #expect(bytes.readBytes(4) == nil)
        #expect(bytes.readBytes(-1) == nil)
        #expect(bytes.skip(4) == false)
        let skipped = bytes.skip(1)
        #expect(skipped)
        #expect(bytes.readBytes(2) == [2, 3])
        #expect(bytes.readBytes(0) == [])
        #expect(bytes.readBytes(1) == nil)

        var empty = ByteCursor([])
        #expect(empty.read(UInt8.self) == nil)
        #expect(empty.readBytes(0) == [])
    }

    @Test func writerWritesLittleEndian() {
        var writer = ByteWriter()
        writer.write(UInt16(0x0102))
        writer.write(UInt32(0x0304_0506))
        writer.write(UInt64(0x0708))
        writer.writeZeros(2)
        writer.write([0xAA])
        #expect(writer.bytes == [0x02, 0x01, 0x06, 0x05, 0x04, 0x03, 0x08, 0x07, 0, 0, 0, 0, 0, 0, 0, 0, 0xAA])
    }

    /// An end record: 2 entries, directory of 92 bytes at 10,000, comment "abc".
    static let endRecord: [UInt8] = [
        0x50, 0x4b, 0x05, 0x06, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x02, 0x00,
        0x5c, 0x00, 0x00, 0x00, 0x10, 0x27, 0x00, 0x00, 0x03, 0x00, 0x61, 0x62, 0x63,
    ]

    @Test func endRecordParsesAndEncodes() throws {
        var cursor = ByteCursor(Self.endRecord)
        let record = try #require(EndOfCentralDirectory.parse(&cursor))
        #expect(record == EndOfCentralDirectory(diskNumber: 0, centralDirectoryDisk: 0, entriesOnDisk: 2, totalEntries: 2,
                                                centralDirectorySize: 92, centralDirectoryOffset: 10_000,
                                                comment: Array("abc".utf8)))
        #expect(!record.needsZip64)
        var writer = ByteWriter()
        record.encode(into: &writer)
        #expect(writer.bytes == Self.endRecord)

        // A comment length past the end is tolerated: what is there is the comment.
        var long = Self.endRecord
        long[20] = 9
        var longCursor = ByteCursor(long)
        #expect(EndOfCentralDirectory.parse(&longCursor)?.comment == Array("abc".utf8))
        var short = ByteCursor(Array(Self.endRecord[0..<21]))
        #expect(EndOfCentralDirectory.parse(&short) == nil)
        var wrong = ByteCursor([0x50, 0x4b, 0x05, 0x05] + Self.endRecord[4...])
        #expect(EndOfCentralDirectory.parse(&wrong) == nil)
    }

    @Test func endRecordSearchPrefersTheOuterArchive() throws {
        // Two end records, the second inside the first one's comment: the first reaches the end exactly.
        var inner = ByteWriter()
        EndOfCentralDirectory(diskNumber: 0, centralDirectoryDisk: 0, entriesOnDisk: 0, totalEntries: 0,
                              centralDirectorySize: 0, centralDirectoryOffset: 0, comment: []).encode(into: &inner)
        var outer = ByteWriter()
        EndOfCentralDirectory(diskNumber: 0, centralDirectoryDisk: 0, entriesOnDisk: 0, totalEntries: 0,
                              centralDirectorySize: 0, centralDirectoryOffset: 0,
                              comment: Array("x".utf8) + inner.bytes).encode(into: &outer)
        let found = try #require(EndRecordLocator.findEndRecord(outer.bytes))
        #expect(found.0 == 0)
        // Trailing bytes after an end record whose comment is shorter: still found.
        let trailing = Self.endRecord + [0, 0, 0]
        #expect(EndRecordLocator.findEndRecord(trailing)?.0 == 0)
    }

    @Test func endRecordSearchTakesACommentPastTheEndLast() throws {
        // Alone, a record whose comment length runs past the end is the record (what is there is its comment).
        var overrun = Self.endRecord
        overrun[20] = 0x60
        overrun[21] = 0xEA
        let found = try #require(EndRecordLocator.findEndRecord(overrun))
        #expect(found.0 == 0 && found.1.comment == Array("abc".utf8))
        // Behind a record whose comment fits, it is not: the one that fits is taken.
        let both = Self.endRecord + overrun
        #expect(EndRecordLocator.findEndRecord(both)?.0 == 0)
    }

    @Test func zip64RecordsRoundTrip() throws {
        let record = Zip64EndOfCentralDirectory(
            versionMadeBy: 0x033F, versionNeeded: 45, diskNumber: 0, centralDirectoryDisk: 0, entriesOnDisk: 70_000,
            totalEntries: 70_000, centralDirectorySize: 0x1_0000_0001, centralDirectoryOffset: 0x2_0000_0002)
        var writer = ByteWriter()
        record.encode(into: &writer)
        #expect(writer.bytes.count == FormatLimit.zip64EndRecordSize)
        #expect(Array(writer.bytes[0..<12]) == [0x50, 0x4b, 0x06, 0x06, 44, 0, 0, 0, 0, 0, 0, 0])
        var cursor = ByteCursor(writer.bytes)
        #expect(Zip64EndOfCentralDirectory.parse(&cursor) == record)
        var tooSmall = writer.bytes
        tooSmall[4] = 43
        var smallCursor = ByteCursor(tooSmall)
        #expect(Zip64EndOfCentralDirectory.parse(&smallCursor) == nil)

        let locator = Zip64Locator(endRecordDisk: 0, endRecordOffset: 0x1_2345_6789, totalDisks: 1)
        var locatorWriter = ByteWriter()
        locator.encode(into: &locatorWriter)
        #expect(locatorWriter.bytes == [0x50, 0x4b, 0x06, 0x07, 0, 0, 0, 0, 0x89, 0x67, 0x45, 0x23, 1, 0, 0, 0, 1, 0, 0, 0])
        var locatorCursor = ByteCursor(locatorWriter.bytes)
        #expect(Zip64Locator.parse(&locatorCursor) == locator)
    }

    @Test func headersRoundTrip() throws {
        let local = LocalFileHeader(fields: EntryFields(versionNeeded: 20, flags: 0x0808, method: 8, dosTime: 0x6DAF, dosDate: 0x585D,
                                    crc32: 0xCAFE_BABE, compressedSize: 10, uncompressedSize: 20),
                                    name: Array("a/b.txt".utf8), extra: [0x35, 0xD9, 0x02, 0x00, 0x04, 0x00])
        var writer = ByteWriter()
        local.encode(into: &writer)
        #expect(writer.bytes.count == local.encodedSize)
        #expect(Array(writer.bytes[0..<10]) == [0x50, 0x4b, 0x03, 0x04, 20, 0, 0x08, 0x08, 8, 0])
        var cursor = ByteCursor(writer.bytes)
        let parsed = try #require(LocalFileHeader.parseFixed(&cursor))
        #expect(parsed.nameLength == 7)
        #expect(parsed.extraLength == 6)
        #expect(parsed.header.crc32 == 0xCAFE_BABE)
        #expect(parsed.header.compressedSize == 10)

        let central = CentralDirectoryHeader(
            versionMadeBy: 0x031E, fields: EntryFields(versionNeeded: 20, flags: 0, method: 0, dosTime: 1, dosDate: 0x21, crc32: 7,
            compressedSize: 3, uncompressedSize: 3), diskNumberStart: 0, internalAttributes: 1,
            externalAttributes: 0o100644 << 16, localHeaderOffset: 99, name: [0x61], extra: [], comment: [0x63])
        var centralWriter = ByteWriter()
        central.encode(into: &centralWriter)
        #expect(centralWriter.bytes.count == central.encodedSize)
        var centralCursor = ByteCursor(centralWriter.bytes)
        #expect(CentralDirectoryHeader.parse(&centralCursor) == central)
        var truncated = ByteCursor(Array(centralWriter.bytes.dropLast()))
        #expect(CentralDirectoryHeader.parse(&truncated) == nil)
    }

    @Test func dosDateTimeConversions() {
        // Before 1980 clamps to 1980-01-01 00:00:00.
        #expect(DOSDateTime(unixTime: 0) == DOSDateTime(time: 0, date: 0x0021))
        #expect(DOSDateTime(unixTime: -5_000) == DOSDateTime(time: 0, date: 0x0021))
        #expect(DOSDateTime(time: 0, date: 0x0021).unixTime == 315_532_800)
        // 2024-02-29 13:45:30 UTC: (44 << 9 | 2 << 5 | 29, 13 << 11 | 45 << 5 | 15).
        let leap = DOSDateTime(unixTime: 1_709_214_330)
        #expect(leap == DOSDateTime(time: 0x6DAF, date: 0x585D))
        #expect(leap.unixTime == 1_709_214_330)
        // Two-second resolution: odd seconds round down.
        #expect(DOSDateTime(unixTime: 1_709_214_331) == leap)
        // After 2107 clamps to the last representable moment, 2107-12-31 23:59:58.
        let last = DOSDateTime(time: 23 << 11 | 59 << 5 | 29, date: 127 << 9 | 12 << 5 | 31)
        #expect(DOSDateTime(unixTime: 4_354_819_199) == last)
        #expect(DOSDateTime(unixTime: 7_271_164_800) == last)
        #expect(last.unixTime == 4_354_819_198)
        // Impossible fields.
        #expect(DOSDateTime(time: 0, date: 0).unixTime == nil)
        #expect(DOSDateTime(time: 24 << 11, date: 0x21).unixTime == nil)
        #expect(DOSDateTime(time: 0, date: 0x21 | 13 << 5).unixTime == nil)
    }

    @Test func cp437HighBytes() {
        #expect(EntryName.cp437([0x80, 0x82, 0x9C, 0xE1, 0xB0, 0xFF]) == "Çé£ß░\u{00A0}")
        #expect(EntryName.cp437(Array("plain/ascii.txt".utf8)) == "plain/ascii.txt")
        #expect(EntryName.cp437([0x9A, 0x62, 0x65, 0x72]) == "Über")
    }

    @Test func zip64ExtraFieldWithSomeFields() throws {
        // Only the compressed size is present (the header had only that field at 0xFFFFFFFF); 0 is a real 0.
        let onlyCompressed = try #require(Zip64ExtraField.parse([0, 0, 0, 0, 0, 0, 0, 0], needUncompressed: false,
                                                                needCompressed: true, needOffset: false, needDisk: false))
        #expect(onlyCompressed == Zip64ExtraField(uncompressedSize: nil, compressedSize: 0, localHeaderOffset: nil))
        // Uncompressed size and offset, in spec order.
        let data: [UInt8] = [1, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0]
        let two = try #require(Zip64ExtraField.parse(data, needUncompressed: true, needCompressed: false,
                                                     needOffset: true, needDisk: false))
        #expect(two.uncompressedSize == 0x1_0000_0001)
        #expect(two.compressedSize == nil)
        #expect(two.localHeaderOffset == 2)
        #expect(two.encoded == data)
        // Too short for what the header asks for.
        #expect(Zip64ExtraField.parse(data, needUncompressed: true, needCompressed: true, needOffset: true,
                                      needDisk: false) == nil)
        // Disk number is 4 bytes.
        let disk = Zip64ExtraField.parse([3, 0, 0, 0], needUncompressed: false, needCompressed: false, needOffset: false,
                                         needDisk: true)
        #expect(disk?.diskNumberStart == 3)
    }

    @Test func extraFieldBlocks() throws {
        let extra: [UInt8] = [0x01, 0x00, 0x04, 0x00, 1, 2, 3, 4, 0x75, 0x70, 0x01, 0x00, 9]
        let blocks = try #require(ExtraField.blocks(extra))
        #expect(blocks.map(\.id) == [0x0001, 0x7075])
        #expect(blocks.map(\.data) == [[1, 2, 3, 4], [9]])
        #expect(ExtraField.find(0x7075, in: extra) == [9])
        #expect(ExtraField.find(0x9999, in: extra) == nil)
        // A block that runs past the end is an error; zero padding (zipalign) and a short tail are not.
        #expect(ExtraField.blocks([0x01, 0x00, 0x09, 0x00, 1, 2]) == nil)
        #expect(ExtraField.blocks([0x01, 0x00, 0x01, 0x00, 7, 0, 0, 0, 0, 0]) != nil)
        #expect(ExtraField.blocks([0x01, 0x00, 0x01, 0x00, 7, 0x35, 0xD9])?.count == 1)
    }

    @Test func zip64SizeOfZeroIsARealZero() throws {
        // As Info-ZIP's `zip -fz -` writes it: 32-bit size 0xFFFFFFFF, Zip64 value 0.
        var extra = ByteWriter()
        ExtraField.append(id: ExtraFieldID.zip64, data: Zip64ExtraField(uncompressedSize: 0).encoded, to: &extra)
        let bytes = handmadeArchive([HandmadeEntry(name: Array("empty".utf8), centralExtra: extra.bytes,
                                                   centralUncompressed: FormatLimit.max32)])
        let archive = try ZipArchive(source: MemorySource(bytes))
        let entry = try archive.requireEntry(named: "empty")
        #expect(entry.uncompressedSize == 0)
        #expect(entry.compressedSize == 0)
        #expect(try archive.contents(of: entry) == [])
    }
}
