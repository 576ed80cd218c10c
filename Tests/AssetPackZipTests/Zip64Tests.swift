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
        memset(buffer.baseAddress!, 0, count)
        left -= UInt64(count)
        return count
    }
}

/// `block` repeated `times`, then `last`: a deflate stream of independent blocks (as a ``ParallelDeflater``
/// writes them) made without deflating every block.
final class RepeatedStream: ByteStream {
    private let block: [UInt8], last: [UInt8]
    private var left: Int
    private var current: [UInt8]
    private var position = 0

    init(_ block: [UInt8], times: Int, then last: [UInt8]) {
        self.block = block
        self.last = last
        self.left = times
        self.current = times > 0 ? block : last
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(ZipError) -> Int {
        if position == current.count {
            guard left > 0 else { return 0 }
            left -= 1
            current = left > 0 ? block : last
            position = 0
        }
        let count = min(buffer.count, current.count - position)
        current.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + position, byteCount: count) }
        position += count
        return count
    }
}

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

/// Entries over 4 GiB, offsets over 4 GiB, more than 65,535 entries. The archives over 4 GiB are written
/// into a ``RunLengthBuffer`` and read back from it: nothing goes through the disk, and runs of zeros
/// cost no memory. As in Go's `TestZip64`, the entry over 4 GiB is stored: deflating 4 GiB would take
/// half a minute of one core and prove nothing more about Zip64; the deflated entry over 4 GiB is made of
/// one deflated block repeated.
@Suite struct Zip64Tests {
    /// Just over 4 GiB: every 32-bit size field overflows.
    static let bigSize: UInt64 = (1 << 32) + 65_537

    /// Each local-header layout once: Zip64 sizes reserved because the size is known, or reserved and
    /// patched because it is not. `unzip -t` needs another 30 s, so it runs in
    /// `Tools/check-zip64-interop.sh`, which sets `ASSETPACK_KEEP_ZIP64` to a folder where these archives
    /// are written out.
    @Test(.hangGuard, arguments: [true, false])
    func entryOver4GiBRoundTrips(sizeKnown: Bool) throws {
        let buffer = RunLengthBuffer(name: "big.zip")
        let writer = try ZipWriter(output: buffer, options: .deterministic())
        try writer.addFile("before.txt", contents: Array("before".utf8))
        let written = try writer.addFile("zeros.bin", from: ZeroStream(count: Self.bigSize),
                                         size: sizeKnown ? Self.bigSize : nil, method: .stored)
        try writer.addFile("after.txt", contents: Array("after".utf8), method: .stored)
        try writer.finish(sync: false)
        #expect(written.uncompressedSize == Self.bigSize)
        #expect(written.compressedSize == Self.bigSize)
        #expect(buffer.size > Self.bigSize && buffer.storedBytes < 1 << 20)

        let archive = try ZipArchive(source: buffer)
        let entry = try archive.requireEntry(named: "zeros.bin")
        #expect(entry.uncompressedSize == Self.bigSize)
        #expect(entry.compressedSize == written.compressedSize)
        #expect(entry.crc32 == written.crc32)
        #expect(try archive.contents(of: archive.requireEntry(named: "before.txt")) == Array("before".utf8))
        #expect(try archive.contents(of: archive.requireEntry(named: "after.txt")) == Array("after".utf8))
        #expect(try countBytes(archive, entry) == Self.bigSize)

        if let keep = ProcessInfo.processInfo.environment["ASSETPACK_KEEP_ZIP64"] {
            try buffer.write(toFile: "\(keep)/big-\(sizeKnown ? "sized" : "streamed").zip")
        }
    }

    /// A deflated entry over 4 GiB of zeros (1,024:1): its 64-bit sizes are recorded exactly and judged by
    /// ratio — within the default (deflate's own ceiling, which no real stream passes), past a caller's
    /// 1,000:1, which refuses it as a likely bomb after about 1 MiB, naming it. zlib writes the stream: it
    /// reaches deflate's ceiling on zeros (libdeflate stops near 990:1).
    @Test func deflatedEntryOver4GiBIsJudgedByItsRatio() throws {
        let blockSize = 4 << 20
        let deflater = try BlockDeflater(level: 6, engine: .zlib)
        let block = try deflater.deflate([UInt8](repeating: 0, count: blockSize), final: false)
        let tail = Int(Self.bigSize % UInt64(blockSize))
        let last = try deflater.deflate([UInt8](repeating: 0, count: tail), final: true)
        let blocks = Int(Self.bigSize / UInt64(blockSize))
        let blockCRC = CRC32.checksum([UInt8](repeating: 0, count: blockSize))
        var crc: UInt32 = 0
        for _ in 0..<blocks { crc = CRC32.combine(crc, blockCRC, secondLength: UInt64(blockSize)) }
        crc = CRC32.combine(crc, CRC32.checksum([UInt8](repeating: 0, count: tail)), secondLength: UInt64(tail))

        let buffer = RunLengthBuffer(name: "deflated.zip")
        let writer = try ZipWriter(output: buffer, options: .deterministic())
        let written = try writer.addPrecompressed("zeros.bin", method: .deflate, crc32: crc, uncompressedSize: Self.bigSize,
                                                  compressedData: RepeatedStream(block, times: blocks, then: last))
        try writer.finish(sync: false)
        #expect(written.uncompressedSize == Self.bigSize)
        #expect(written.compressedSize < 20 << 20)
        #expect(written.uncompressedSize > 1_000 * written.compressedSize)

        #expect(throws: Never.self) { try ZipLimits.default.checkRatio(output: written.uncompressedSize, input: written.compressedSize) }
        let guarded = try ZipArchive(source: buffer, limits: ZipLimits(maxCompressionRatio: 1_000))
        let entry = try guarded.requireEntry(named: "zeros.bin")
        #expect(entry.uncompressedSize == Self.bigSize && entry.compressedSize == written.compressedSize)
        let error = zipError { () throws(ZipError) in try countBytes(guarded, entry) }
        #expect(error?.code == .limitExceeded)
        #expect(error?.entry == "zeros.bin")
        #expect(error?.description.contains(buffer.name) == true)
    }

    @Test func offsetsOver4GiBUseZip64Records() throws {
        // The archive starts 5 GiB in (a run of zeros), so every offset needs 64 bits.
        let buffer = RunLengthBuffer(name: "far.zip", zeros: 5 << 30)
        let writer = try ZipWriter(output: buffer, options: .deterministic())
        try writer.addDirectory("far")
        try writer.addFile("far/a.txt", contents: Array("far away".utf8))
        try writer.addFile("far/b.bin", contents: [1, 2, 3], method: .stored)
        try writer.finish(sync: false)

        let archive = try ZipArchive(source: buffer)
        #expect(archive.centralDirectoryOffset > 5 << 30)
        #expect(archive.prefixLength == 0)
        #expect(archive.entries.allSatisfy { $0.localHeaderOffset >= 5 << 30 })
        #expect(try archive.contents(of: archive.requireEntry(named: "far/a.txt")) == Array("far away".utf8))
        #expect(try archive.contents(of: archive.requireEntry(named: "far/b.bin")) == [1, 2, 3])
        let central = try buffer.readBytes(Int(buffer.size - archive.centralDirectoryOffset), at: archive.centralDirectoryOffset)
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
