import Foundation
import Testing
import TestSupport
@testable import AssetPackZip

/// Resuming a block-indexed entry: the blocks an interrupted run wrote are read back for their CRC-32, not
/// inflated again, and blocks that are not what the entry holds fail the combined check.
@Suite struct BlockResumeTests {
    /// Block numbers handed to `blocksWritten`.
    final class Written: @unchecked Sendable {
        private let lock = NSLock()
        private var numbers: Set<Int> = []
        func add(_ range: Range<Int>) { lock.withLock { numbers.formUnion(range) } }
        var all: Set<Int> { lock.withLock { numbers } }
    }

    /// A file holding the entry's bytes for the blocks in `kept` only (zeros elsewhere), as an interrupted
    /// run leaves it; `damage` flips one byte of the first kept block.
    private func partialFile(_ sample: BlockArchive, _ inflater: BlockParallelInflater, kept: Set<Int>, damage: Bool,
                             at path: String) throws -> Int32 {
        var bytes = [UInt8](repeating: 0, count: sample.data.count)
        for number in kept {
            let span = inflater.spans[number].uncompressed
            bytes.replaceSubrange(Int(span.lowerBound)..<Int(span.upperBound), with: sample.data[Int(span.lowerBound)..<Int(span.upperBound)])
        }
        if damage, let first = kept.min() { bytes[Int(inflater.spans[first].uncompressed.lowerBound) + 7] ^= 0x40 }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return open(path, O_RDWR)
    }

    @Test(arguments: [1, 3])
    func keptBlocksAreReadBackAndOnlyTheOthersInflated(jobs: Int) throws {
        let sample = try BlockArchive.make(mixedData(900_000, seed: 5))
        let archive = try sample.archive
        let inflater = try BlockParallelInflater(archive: archive, entry: archive.entries[0], index: sample.index)
        #expect(inflater.spans.count >= 4)
        let kept: Set<Int> = [0, 2, inflater.spans.count - 1]
        let dir = try TemporaryDirectory("block-resume")
        let fd = try partialFile(sample, inflater, kept: kept, damage: false, at: dir.file("out"))
        defer { close(fd) }
        let written = Written()
        let crc = try inflater.inflate(into: fd, path: dir.file("out"), jobs: jobs, keeping: kept, blocksWritten: { written.add($0) })
        #expect(crc == CRC32.checksum(sample.data))
        #expect(written.all == Set(inflater.spans.indices).subtracting(kept))
        #expect(try fileBytes(dir.file("out")) == sample.data)
    }

    @Test func aDamagedKeptBlockFailsTheCombinedCheck() throws {
        let sample = try BlockArchive.make(mixedData(900_000, seed: 6))
        let archive = try sample.archive
        let inflater = try BlockParallelInflater(archive: archive, entry: archive.entries[0], index: sample.index)
        let dir = try TemporaryDirectory("block-resume-damaged")
        let fd = try partialFile(sample, inflater, kept: [1], damage: true, at: dir.file("out"))
        defer { close(fd) }
        let error = blockError { _ = try inflater.inflate(into: fd, path: dir.file("out"), jobs: 2, keeping: [1]) }
        #expect(error?.code == .checksum)
        #expect(error?.entry == "big.bin")
    }

    @Test func aKeptBlockPastTheEndOfTheFileIsTruncated() throws {
        let sample = try BlockArchive.make(mixedData(900_000, seed: 7))
        let archive = try sample.archive
        let inflater = try BlockParallelInflater(archive: archive, entry: archive.entries[0], index: sample.index)
        let dir = try TemporaryDirectory("block-resume-short")
        let path = dir.file("out")
        try Data(sample.data.prefix(Int(inflater.spans[1].uncompressed.lowerBound))).write(to: URL(fileURLWithPath: path))
        let fd = open(path, O_RDWR)
        defer { close(fd) }
        let last = inflater.spans.count - 1
        let error = blockError { _ = try inflater.inflate(into: fd, path: path, jobs: 2, keeping: [0, last]) }
        #expect(error?.code == .truncated)
    }
}
