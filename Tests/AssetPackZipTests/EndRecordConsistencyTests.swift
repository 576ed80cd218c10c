@testable import AssetPackZip
import Testing
import TestSupport

/// End records that do not add up are errors, as `unzip` treats them: entry counts that disagree with each
/// other (plain and Zip64, this disk and all) or with the central directory actually read, and a Zip64
/// locator that does not point at a Zip64 end record inside the file. The same archives with consistent
/// records read, including a Zip64 archive behind a self-extractor stub whose offsets do not count the stub.
@Suite struct EndRecordConsistencyTests {
    static let raw = RawZip([RawZip.file("a.txt", Array("alpha\n".utf8)), RawZip.file("b.txt", Array("beta\n".utf8))])

    /// The archive with a Zip64 end record and locator before its plain end record.
    struct Zip64Parts {
        var onDisk: UInt64 = 2
        var total: UInt64 = 2
        var plainCount: UInt16 = 0xFFFF
        /// The locator's offset of the Zip64 end record; nil for the true one.
        var locatorPoints: UInt64?
        /// Bytes put in front of the archive without adjusting any offset.
        var prefix: [UInt8] = []

        func bytes() -> [UInt8] {
            let (plain, layout) = EndRecordConsistencyTests.raw.build()
            var out = Array(plain[..<layout.endOffset])
            let directorySize = UInt64(layout.endOffset - layout.directoryOffset)
            let recordOffset = UInt64(out.count)
            out.appendLE(0x0606_4b50 as UInt32)
            out.appendLE(44 as UInt64)
            out.appendLE(45 as UInt16)
            out.appendLE(45 as UInt16)
            out.appendLE(0 as UInt32)
            out.appendLE(0 as UInt32)
            out.appendLE(onDisk)
            out.appendLE(total)
            out.appendLE(directorySize)
            out.appendLE(UInt64(layout.directoryOffset))
            out.appendLE(0x0706_4b50 as UInt32)
            out.appendLE(0 as UInt32)
            out.appendLE(locatorPoints ?? recordOffset)
            out.appendLE(1 as UInt32)
            out.appendLE(0x0605_4b50 as UInt32)
            out.appendLE(0 as UInt16)
            out.appendLE(0 as UInt16)
            out.appendLE(plainCount)
            out.appendLE(plainCount)
            out.appendLE(0xFFFF_FFFF as UInt32)
            out.appendLE(0xFFFF_FFFF as UInt32)
            out.appendLE(0 as UInt16)
            return prefix + out
        }
    }

    static func read(_ bytes: [UInt8]) throws(ZipError) -> ZipArchive {
        try ZipArchive(source: MemorySource(bytes, name: "end.zip"))
    }

    static func expectRefused(_ bytes: [UInt8], mentioning words: [String],
                              sourceLocation: SourceLocation = #_sourceLocation) {
        let error = #expect(throws: ZipError.self, sourceLocation: sourceLocation) { try read(bytes) }
        #expect(error?.code == .format, sourceLocation: sourceLocation)
        for word in words + ["end.zip"] {
            #expect(error?.description.contains(word) == true, "\(error.map(String.init(describing:)) ?? "no error") lacks \(word)",
                    sourceLocation: sourceLocation)
        }
    }

    @Test func consistentRecordsRead() throws {
        #expect(try Self.read(Self.raw.bytes).entries.count == 2)
        #expect(try Self.read(Zip64Parts().bytes()).entries.map(\.name) == ["a.txt", "b.txt"])
        #expect(try Self.read(Zip64Parts(plainCount: 2).bytes()).entries.count == 2)
    }

    @Test func aZip64ArchiveBehindAStubStillReads() throws {
        let archive = try Self.read(Zip64Parts(prefix: Array("#!/bin/sh\nexit 0\n".utf8)).bytes())
        #expect(try archive.contents(of: archive.requireEntry(named: "b.txt")) == Array("beta\n".utf8))
    }

    /// An end record whose comment-length field runs past the end of the file (60,000 stated, 2 there) is
    /// still the end record, as `unzip`, `bsdtar` and Python's `zipfile` read it; its other checks still apply.
    @Test func aCommentLengthPastTheEndStillReads() throws {
        var bytes = Self.raw.bytes + Array("hi".utf8)
        let end = bytes.count - 2 - 22
        bytes[end + 20] = UInt8(60_000 & 0xFF)
        bytes[end + 21] = UInt8(60_000 >> 8)
        let archive = try Self.read(bytes)
        #expect(archive.comment == Array("hi".utf8))
        #expect(try archive.contents(of: archive.requireEntry(named: "b.txt")) == Array("beta\n".utf8))
        bytes[end + 10] = 3  // and its counts must still agree
        Self.expectRefused(bytes, mentioning: ["end record counts"])
    }

    @Test func plainCountsThatDisagreeAreRefused() {
        var bytes = Self.raw.bytes
        let end = bytes.count - 22
        bytes[end + 8] = 3  // entries on this disk: 3, in all: 2
        Self.expectRefused(bytes, mentioning: ["3 entries on its disk but 2 in all"])
    }

    @Test func zip64CountsThatDisagreeAreRefused() {
        Self.expectRefused(Zip64Parts(onDisk: 1).bytes(), mentioning: ["Zip64 end record counts 1 entries on its disk but 2"])
    }

    @Test func plainAndZip64CountsThatDisagreeAreRefused() {
        Self.expectRefused(Zip64Parts(plainCount: 5).bytes(), mentioning: ["end record counts 5 entries but the Zip64 end record 2"])
    }

    @Test func countsThatDisagreeWithTheDirectoryAreRefused() {
        Self.expectRefused(Zip64Parts(onDisk: 1, total: 1).bytes(), mentioning: ["counts 1 entries", "holds 2"])
    }

    @Test(arguments: [UInt64(1) << 40, 0, 7])
    func aLocatorThatPointsAtNoZip64RecordIsRefused(_ offset: UInt64) {
        Self.expectRefused(Zip64Parts(locatorPoints: offset).bytes(),
                           mentioning: ["Zip64 locator points to \(offset)", "no Zip64 end record"])
    }
}

extension Array where Element == UInt8 {
    fileprivate mutating func appendLE<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }
}
