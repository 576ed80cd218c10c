import Foundation
import Testing
import TestSupport
@testable import AssetPackZip

/// `count` zero bytes, produced on demand: a 4 GiB entry without 4 GiB of memory or disk.
final class ZeroStream: ByteStream {
    private var left: UInt64

    init(count: UInt64) { left = count }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(ZipError) -> Int {
        let count = Int(min(UInt64(buffer.count), left))
        guard count > 0 else { return 0 }
        buffer.baseAddress!.initializeMemory(as: UInt8.self, repeating: 0, count: count)
        left -= UInt64(count)
        return count
    }
}

/// Limits that let deflated zeros (about 1,030:1) through.
let zerosLimits = ZipLimits(maxCompressionRatio: 2_000)

/// Streams `entry` to the end, counting bytes; the reader itself checks size and CRC-32 before it ends.
func countBytes(_ archive: ZipArchive, _ entry: ZipEntry) throws(ZipError) -> UInt64 {
    let reader = try archive.open(entry, bufferSize: 1 << 20)
    var buffer = [UInt8](repeating: 0, count: 1 << 20)
    var total: UInt64 = 0
    while true {
        let count = try buffer.withMutableRawBytes { (raw) throws(ZipError) -> Int in try reader.read(into: raw) }
        if count == 0 { return total }
        total += UInt64(count)
    }
}

/// The slowest suite: 4 GiB of zeros are deflated and inflated twice (about 50 s of one core in all).
@Suite("Zip64: entries over 4 GiB, offsets over 4 GiB, more than 65,535 entries")
struct Zip64Tests {
    /// Just over 4 GiB: every 32-bit size field overflows.
    static let bigSize: UInt64 = (1 << 32) + 65_537

    /// Deflating 4 GiB of zeros takes about 8 s at level 1 (229:1, inflates in 3 s) and 20 s at level 6
    /// (1,029:1, past the default ratio limit, inflates in 20 s): each header layout is written once, at the
    /// level its checks need. `unzip -t` needs another 30 s, so it runs in `Tools/check-zip64-interop.sh`,
    /// which sets `ASSETPACK_KEEP_ZIP64` to a folder where these archives are kept.
    @Test(.hangGuard, arguments: [(sizeKnown: true, level: 1), (sizeKnown: false, level: 6)])
    func entryOver4GiBRoundTrips(sizeKnown: Bool, level: Int) throws {
        let directory = try TemporaryDirectory("zip64-big")
        let path = directory.file("big.zip")
        let writer = try ZipWriter(path: path, options: .deterministic(level: level))
        try writer.addFile("before.txt", contents: Array("before".utf8))
        let written = try writer.addFile("zeros.bin", from: ZeroStream(count: Self.bigSize),
                                         size: sizeKnown ? Self.bigSize : nil)
        try writer.addFile("after.txt", contents: Array("after".utf8), method: .stored)
        try writer.finish(sync: false)
        #expect(written.uncompressedSize == Self.bigSize)
        #expect(written.compressedSize < 20 << 20)

        let archive = try ZipArchive(path: path, limits: zerosLimits)
        let entry = try archive.requireEntry(named: "zeros.bin")
        #expect(entry.uncompressedSize == Self.bigSize)
        #expect(entry.compressedSize == written.compressedSize)
        #expect(entry.crc32 == written.crc32)
        #expect(try archive.contents(of: archive.requireEntry(named: "before.txt")) == Array("before".utf8))
        #expect(try archive.contents(of: archive.requireEntry(named: "after.txt")) == Array("after".utf8))
        #expect(try countBytes(archive, entry) == Self.bigSize)

        if written.uncompressedSize > 1_000 * written.compressedSize {
            // The default limits refuse the same entry as a likely bomb, after about 1 MiB.
            let guarded = try ZipArchive(path: path)
            let error = zipError { () throws(ZipError) in try countBytes(guarded, entry) }
            #expect(error?.code == .limitExceeded)
            #expect(error?.entry == "zeros.bin")
            #expect(error?.description.contains(path) == true)
        }
        if let keep = ProcessInfo.processInfo.environment["ASSETPACK_KEEP_ZIP64"] {
            try FileManager.default.copyItem(atPath: path, toPath: "\(keep)/big-level\(level).zip")
        }
    }

    @Test func offsetsOver4GiBUseZip64Records() throws {
        // A sparse file: the archive starts 5 GiB in, so every offset needs 64 bits.
        let directory = try TemporaryDirectory("zip64-offset")
        let path = directory.file("far.zip")
        let descriptor = open(path, O_RDWR | O_CREAT | O_TRUNC, 0o644)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        #expect(lseek(descriptor, 5 << 30, SEEK_SET) == 5 << 30)
        let writer = try ZipWriter(descriptor: descriptor, name: path, options: .deterministic())
        try writer.addDirectory("far")
        try writer.addFile("far/a.txt", contents: Array("far away".utf8))
        try writer.addFile("far/b.bin", contents: [1, 2, 3], method: .stored)
        try writer.finish(sync: false)

        let archive = try ZipArchive(path: path)
        #expect(archive.centralDirectoryOffset > 5 << 30)
        #expect(archive.prefixLength == 0)
        #expect(archive.entries.allSatisfy { $0.localHeaderOffset >= 5 << 30 })
        #expect(try archive.contents(of: archive.requireEntry(named: "far/a.txt")) == Array("far away".utf8))
        #expect(try archive.contents(of: archive.requireEntry(named: "far/b.bin")) == [1, 2, 3])
        let central = try fileBytesAt(path, offset: archive.centralDirectoryOffset,
                                      count: Int(UInt64(try FileSource(path: path).size) - archive.centralDirectoryOffset))
        #expect(central.containsSubsequence([0x50, 0x4b, 0x06, 0x06]), "Zip64 end record")
        #expect(central.containsSubsequence([0x50, 0x4b, 0x06, 0x07]), "Zip64 locator")
    }

    @Test(.hangGuard)
    func moreThan65535Entries() throws {
        let directory = try TemporaryDirectory("zip64-many")
        let path = directory.file("many.zip")
        let count = 70_000
        let writer = try ZipWriter(path: path, options: .deterministic())
        for index in 0..<count {
            try writer.addFile("d\(index / 1000)/f\(index).txt", contents: Array("\(index)".utf8), method: .stored)
        }
        try writer.finish(sync: false)

        let archive = try ZipArchive(path: path)
        #expect(archive.entries.count == count)
        for index in [0, 1, 65_534, 65_535, 65_536, count - 1] {
            let entry = try archive.requireEntry(named: "d\(index / 1000)/f\(index).txt")
            #expect(entry.index == index)
            #expect(try archive.contents(of: entry) == Array("\(index)".utf8))
        }
        #expect(archive.contentsOfDirectory("")?.count == 70)
        #expect(archive.contentsOfDirectory("d69")?.count == 1_000)
        #expect(try archive.verify() > 0)
        let bytes = try fileBytes(path)
        #expect(bytes.containsSubsequence([0x50, 0x4b, 0x06, 0x06]), "Zip64 end record")
        try ExternalTool.python3.require()
        try shell("python3 -c \"import zipfile; z = zipfile.ZipFile('many.zip'); assert len(z.infolist()) == \(count); "
                  + "assert z.testzip() is None\"", in: directory.path)

        // The same directory behind a plain end record whose 16-bit count has wrapped (what old writers do):
        // the directory's size still says where it ends, so every entry is found.
        let wrapped = wrappedCountArchive(bytes, directoryOffset: Int(archive.centralDirectoryOffset), entries: count)
        let rewrapped = try ZipArchive(source: MemorySource(wrapped, name: "wrapped.zip"))
        #expect(rewrapped.entries.count == count)
        #expect(try rewrapped.contents(of: rewrapped.requireEntry(named: "d69/f69999.txt")) == Array("69999".utf8))
    }

    /// Replaces the Zip64 end records with one plain end record holding `entries` modulo 65,536.
    func wrappedCountArchive(_ bytes: [UInt8], directoryOffset: Int, entries: Int) -> [UInt8] {
        let zip64End = bytes.lastIndex(ofSubsequence: [0x50, 0x4b, 0x06, 0x06])!
        var writer = ByteWriter()
        EndOfCentralDirectory(diskNumber: 0, centralDirectoryDisk: 0, entriesOnDisk: UInt16(entries & 0xFFFF),
                              totalEntries: UInt16(entries & 0xFFFF), centralDirectorySize: UInt32(zip64End - directoryOffset),
                              centralDirectoryOffset: UInt32(directoryOffset), comment: []).encode(into: &writer)
        return Array(bytes[0..<zip64End]) + writer.bytes
    }
}

/// `count` bytes of a file at `offset`.
func fileBytesAt(_ path: String, offset: UInt64, count: Int) throws -> [UInt8] {
    let source = try FileSource(path: path)
    return try source.readBytes(count, at: offset)
}

extension Array where Element == UInt8 {
    /// The start of the last occurrence of `needle`.
    func lastIndex(ofSubsequence needle: [UInt8]) -> Int? {
        guard count >= needle.count else { return nil }
        return stride(from: count - needle.count, through: 0, by: -1).first { start in
            self[start..<start + needle.count].elementsEqual(needle)
        }
    }

    func containsSubsequence(_ needle: [UInt8]) -> Bool { lastIndex(ofSubsequence: needle) != nil }
}
