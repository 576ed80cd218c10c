import Foundation
import Testing
import TestSupport
@testable import AssetPackZip

/// An archive holding one block-deflated entry `data`, in memory, with its block index.
struct BlockArchive {
    var bytes: [UInt8]
    let data: [UInt8]
    let index: DeflateBlockIndex

    static func make(_ data: [UInt8] = mixedData(650_000, seed: 11), crc32: UInt32? = nil) throws -> BlockArchive {
        let dir = try TemporaryDirectory("block-archive")
        let (stream, output) = try blockDeflate(data, ParallelDeflater(blockSize: ParallelDeflater.minimumBlockSize, jobs: 2))
        let writer = try ZipWriter(path: dir.file("a.zip"), options: .deterministic())
        _ = try writer.addPrecompressed("big.bin", method: .deflate, crc32: crc32 ?? output.crc32,
                                        uncompressedSize: UInt64(data.count), compressedData: stream)
        try writer.finish()
        return BlockArchive(bytes: try fileBytes(dir.file("a.zip")), data: data, index: output.index)
    }

    var archive: ZipArchive { get throws { try ZipArchive(source: MemorySource(bytes)) } }

    /// Where the entry's data starts in ``bytes``.
    var dataStart: Int { get throws { Int(try archive.dataRange(of: archive.entries[0]).lowerBound) } }

    /// Inflates with `index` (default: the true one) into a fresh file; returns the CRC and the file's bytes.
    func inflate(index: DeflateBlockIndex? = nil, jobs: Int = 3, limits: ZipLimits = .default,
                 progress: @Sendable (UInt64) -> Bool = { _ in true }) throws -> (crc: UInt32, file: [UInt8]) {
        let dir = try TemporaryDirectory("block-out")
        let archive = try ZipArchive(source: MemorySource(bytes), limits: limits)
        let inflater = try BlockParallelInflater(archive: archive, entry: archive.entries[0], index: index ?? self.index)
        let fd = open(dir.file("out"), O_CREAT | O_RDWR | O_TRUNC, 0o600)
        defer { close(fd) }
        var crc: UInt32 = 0
        var failure: Error?
        do { crc = try inflater.inflate(into: fd, path: dir.file("out"), jobs: jobs, progress: progress) } catch { failure = error }
        let file = try fileBytes(dir.file("out"))
        // Whatever happened, nothing was written past the entry's size.
        #expect(file.count <= data.count)
        if let failure { throw failure }
        return (crc, file)
    }
}

/// The error `body` throws, as a ``ZipError``.
func blockError(_ body: () throws -> Void) -> ZipError? {
    do {
        try body()
        return nil
    } catch {
        return error as? ZipError
    }
}

/// `index` with block `number` moved by the given amounts.
func shifted(_ index: DeflateBlockIndex, block number: Int, uncompressed: Int64 = 0, compressed: Int64 = 0) -> DeflateBlockIndex {
    var copy = index
    copy.blocks[number].uncompressedOffset = UInt64(Int64(copy.blocks[number].uncompressedOffset) + uncompressed)
    copy.blocks[number].compressedOffset = UInt64(Int64(copy.blocks[number].compressedOffset) + compressed)
    return copy
}

/// BlockParallelInflater: a block index, checked, inflated on several cores.
@Suite struct BlockParallelInflaterTests {
    @Test(arguments: [1, 2, 4])
    func reproducesTheData(jobs: Int) throws {
        let sample = try BlockArchive.make()
        let (crc, file) = try sample.inflate(jobs: jobs)
        #expect(file == sample.data)
        #expect(crc == CRC32.checksum(sample.data))
    }

    @Test func reportsProgressAndStopsWhenAsked() throws {
        let sample = try BlockArchive.make()
        final class Total: @unchecked Sendable {
            let lock = NSLock()
            var bytes: UInt64 = 0
        }
        let total = Total()
        _ = try sample.inflate { count in
            total.lock.lock()
            total.bytes += count
            total.lock.unlock()
            return true
        }
        #expect(total.bytes == UInt64(sample.data.count))
        #expect(blockError { _ = try sample.inflate { _ in false } }?.code == .cancelled)
    }

    @Test func aCoarserIndexStillWorks() throws {
        let sample = try BlockArchive.make()
        var coarse = sample.index
        coarse.blocks = coarse.blocks.enumerated().filter { $0.offset % 3 == 0 }.map(\.element)
        #expect(try sample.inflate(index: coarse).file == sample.data)
        #expect(try sample.inflate(index: DeflateBlockIndex([sample.index.blocks[0]])).file == sample.data)
    }

    @Test func refusesAnIndexThatDoesNotFit() throws {
        let sample = try BlockArchive.make()
        let size = UInt64(sample.data.count)
        let last = sample.index.blocks.count - 1
        var tooFar = sample.index
        tooFar.blocks[last].uncompressedOffset = size + 1
        var pastData = sample.index
        pastData.blocks[last].compressedOffset = UInt64(try sample.archive.entries[0].compressedSize) + 10
        var huge = sample.index
        huge.blocks[2] = DeflateBlockIndex.Block(uncompressedOffset: .max, compressedOffset: .max - 2)
        var notFromZero = sample.index
        notFromZero.blocks.removeFirst()
        var backwards = sample.index
        backwards.blocks.swapAt(2, 3)
        var duplicate = sample.index
        duplicate.blocks.insert(duplicate.blocks[4], at: 4)
        for (label, index) in [("too far", tooFar), ("past the data", pastData), ("huge", huge), ("not from 0", notFromZero),
                               ("backwards", backwards), ("duplicate", duplicate), ("empty", DeflateBlockIndex([]))] {
            #expect(blockError { _ = try sample.inflate(index: index) }?.code == .format, "\(label)")
        }
        #expect(blockError { _ = try DeflateBlockIndex(pairs: [[0, 0], [1, 2, 3]]) }?.code == .format)
        #expect(try DeflateBlockIndex(pairs: sample.index.pairs) == sample.index)
    }

    @Test func refusesBlocksThatDoNotDecodeAsTheIndexSays() throws {
        let sample = try BlockArchive.make()
        // A block boundary one byte off is not where a flush ended (one job: the blocks fail in order;
        // with more, the next block, which then starts mid-stream, may fail first, as corrupt data).
        #expect(blockError { _ = try sample.inflate(index: shifted(sample.index, block: 3, compressed: 1), jobs: 1) }?.code == .format)
        #expect(blockError { _ = try sample.inflate(index: shifted(sample.index, block: 3, compressed: -1), jobs: 1) }?.code == .format)
        let offByOne = blockError { _ = try sample.inflate(index: shifted(sample.index, block: 3, compressed: 1), jobs: 4) }?.code
        #expect(offByOne == .format || offByOne == .corruptData)
        // Right boundaries, wrong lengths.
        let wrongLength = shifted(sample.index, block: 3, uncompressed: 100)
        #expect(blockError { _ = try sample.inflate(index: wrongLength) }?.code == .sizeMismatch)
        let shorter = shifted(sample.index, block: 3, uncompressed: -100)
        #expect(blockError { _ = try sample.inflate(index: shorter, jobs: 1) }?.code == .sizeMismatch)
    }

    @Test func refusesTamperedData() throws {
        var sample = try BlockArchive.make()
        let start = try sample.dataStart
        let middle = start + Int(sample.index.blocks[4].compressedOffset + sample.index.blocks[5].compressedOffset) / 2
        sample.bytes[middle] ^= 0x55
        let error = blockError { _ = try sample.inflate() }
        let codes: [ZipError.Code] = [.corruptData, .sizeMismatch, .checksum, .format]
        #expect(error.map { codes.contains($0.code) } == true, "\(String(describing: error))")
        #expect(error?.entry == "big.bin")
    }

    @Test func checksTheCombinedCRC() throws {
        let data = mixedData(300_000, seed: 3)
        let sample = try BlockArchive.make(data, crc32: CRC32.checksum(data) ^ 1)
        #expect(blockError { _ = try sample.inflate() }?.code == .checksum)
    }

    @Test func refusesStoredEntriesAndBombs() throws {
        let dir = try TemporaryDirectory("block-stored")
        let writer = try ZipWriter(path: dir.file("s.zip"))
        try writer.addFile("s", contents: mixedData(100_000), method: .stored)
        try writer.finish()
        let archive = try ZipArchive(path: dir.file("s.zip"))
        let index = DeflateBlockIndex([DeflateBlockIndex.Block(uncompressedOffset: 0, compressedOffset: 0)])
        #expect(blockError { _ = try BlockParallelInflater(archive: archive, entry: archive.entries[0], index: index) }?.code == .unsupportedMethod)
        let zeros = try BlockArchive.make([UInt8](repeating: 0, count: 3 << 20))
        let limits = ZipLimits(maxCompressionRatio: 100)
        #expect(blockError { _ = try zeros.inflate(limits: limits) }?.code == .limitExceeded)
        #expect(try zeros.inflate().file == zeros.data)
    }
}
