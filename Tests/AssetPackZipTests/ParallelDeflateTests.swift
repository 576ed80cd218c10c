import Foundation
import Testing
import TestSupport
@testable import AssetPackZip

/// Data for block tests: text with stretches of random bytes, so blocks differ in how well they compress.
func mixedData(_ count: Int, seed: UInt64 = 5) -> [UInt8] {
    var random = SeededRandom(seed: seed)
    var result: [UInt8] = []
    result.reserveCapacity(count)
    while result.count < count {
        let length = min(count - result.count, Int(random.next() % 40_000) + 1)
        result += random.next() % 4 == 0 ? random.bytes(length) : random.text(length)
    }
    return result
}

/// Inflates a whole raw deflate stream in one go with our ``Inflater``; nil when it does not end cleanly.
func inflateWhole(_ compressed: [UInt8], expected: Int) throws -> [UInt8]? {
    let inflater = try Inflater()
    var output = [UInt8](repeating: 0, count: expected + 1)
    let step = try compressed.withUnsafeBytes { input in
        try output.withUnsafeMutableBytes { out in try inflater.inflate(input, into: out) }
    }
    guard step.finished, step.consumed == compressed.count else { return nil }
    return Array(output[0..<step.produced])
}

/// Compresses `data` with `deflater`; returns the stream and what the deflater reported.
func blockDeflate(_ data: [UInt8], _ deflater: ParallelDeflater) throws -> ([UInt8], ParallelDeflater.Output) {
    var stream: [UInt8] = []
    let output = try deflater.compress(MemorySource(data)) { bytes in stream += bytes }
    return (stream, output)
}

/// ParallelDeflater: independent blocks, one standard stream.
@Suite struct ParallelDeflateTests {
    static let blockSize = ParallelDeflater.minimumBlockSize

    @Test func oneValidStreamWhateverTheJobs() throws {
        let data = mixedData(1_000_000)
        let (single, reported) = try blockDeflate(data, ParallelDeflater(level: 6, blockSize: Self.blockSize, jobs: 1))
        for jobs in [2, 3, 8] {
            let (stream, output) = try blockDeflate(data, ParallelDeflater(level: 6, blockSize: Self.blockSize, jobs: jobs))
            #expect(stream == single, "jobs \(jobs) changed the bytes")
            #expect(output == reported)
        }
        #expect(try inflateWhole(single, expected: data.count) == data)
        #expect(reported.crc32 == CRC32.checksum(data))
        #expect(reported.uncompressedSize == UInt64(data.count))
        #expect(reported.compressedSize == UInt64(single.count))
        #expect(reported.compressedSize < UInt64(data.count))
    }

    @Test func indexMarksFlushedBlockBoundaries() throws {
        let data = mixedData(300_000)
        let (stream, output) = try blockDeflate(data, ParallelDeflater(level: 6, blockSize: Self.blockSize, jobs: 2))
        let blocks = output.index.blocks
        #expect(blocks.count == 5)
        #expect(blocks.map(\.uncompressedOffset) == (0..<5).map { UInt64($0 * Self.blockSize) })
        for block in blocks.dropFirst() {
            let end = Int(block.compressedOffset)
            #expect(Array(stream[(end - 4)..<end]) == [0, 0, 0xFF, 0xFF])
        }
        // Every block inflates on its own to exactly its bytes.
        for (number, span) in try output.index.spans(uncompressedSize: UInt64(data.count),
                                                     compressedSize: UInt64(stream.count)).enumerated() {
            let inflater = try Inflater()
            var out = [UInt8](repeating: 0, count: Self.blockSize + 1)
            let piece = Array(stream[Int(span.compressed.lowerBound)..<Int(span.compressed.upperBound)])
            let step = try piece.withUnsafeBytes { input in try out.withUnsafeMutableBytes { try inflater.inflate(input, into: $0) } }
            #expect(Array(out[0..<step.produced]) == Array(data[Int(span.uncompressed.lowerBound)..<Int(span.uncompressed.upperBound)]))
            #expect(step.finished == (number == blocks.count - 1))
        }
    }

    @Test func emptyAndTinyInputs() throws {
        let deflater = try ParallelDeflater(level: 6, blockSize: Self.blockSize, jobs: 2)
        let (empty, emptyOutput) = try blockDeflate([], deflater)
        #expect(try inflateWhole(empty, expected: 0) == [])
        #expect(emptyOutput.index.blocks.count == 1 && emptyOutput.crc32 == 0)
        let (tiny, _) = try blockDeflate([42], deflater)
        #expect(try inflateWhole(tiny, expected: 1) == [42])
        let exact = mixedData(Self.blockSize * 2)
        let (stream, output) = try blockDeflate(exact, deflater)
        #expect(output.index.blocks.count == 2)
        #expect(try inflateWhole(stream, expected: exact.count) == exact)
    }

    @Test func refusesBadSettingsAndShortSources() throws {
        #expect(blockError { _ = try ParallelDeflater(level: 0) }?.code == .invalidArgument)
        #expect(blockError { _ = try ParallelDeflater(blockSize: 1000) }?.code == .invalidArgument)
        let lying = LyingSource(bytes: mixedData(100_000), claimedSize: 200_000)
        let error = blockError { _ = try ParallelDeflater(blockSize: Self.blockSize, jobs: 2).compress(lying) { _ in } }
        #expect(error?.code == .truncated)
    }

    @Test func noiseIsStoredAndTextStillShrinks() throws {
        var random = SeededRandom(seed: 17)
        let noise = random.bytes(300_000), text = random.text(300_000)
        let deflater = try BlockDeflater(level: 6)
        let storedNoise = try deflater.deflate(noise)
        #expect(storedNoise.count > noise.count && storedNoise.count < noise.count + 100)
        #expect(try inflateWhole(storedNoise, expected: noise.count) == noise)
        #expect(noise.withUnsafeBytes { NoiseDetector.isNoise($0) })
        #expect(!text.withUnsafeBytes { NoiseDetector.isNoise($0) })
        #expect(!noise.withUnsafeBytes { NoiseDetector.isNoise(UnsafeRawBufferPointer(rebasing: $0[0..<1000])) })
        let (pairs, equal) = noise.withUnsafeBytes { NoiseDetector.collisions($0) }
        #expect(abs(Double(equal) / Double(pairs) * 256 - 1) < 0.02)
        // Text and noise in 64 KiB stretches: the text still shrinks, the noise is kept as it is.
        var mixed: [UInt8] = []
        for index in 0..<8 { mixed += Array((index.isMultiple(of: 2) ? text : noise)[(index * 65_536 / 2)..<(index * 65_536 / 2 + 65_536)]) }
        let adaptive = try deflater.deflate(mixed)
        let plain = try BlockDeflater(level: 6, storesNoise: false).deflate(mixed)
        #expect(try inflateWhole(adaptive, expected: mixed.count) == mixed)
        #expect(try inflateWhole(plain, expected: mixed.count) == mixed)
        #expect(adaptive.count < 4 * 65_536 + 4 * 65_536 / 2)
        #expect(Double(adaptive.count) < Double(plain.count) * 1.01)
        #expect(try deflater.deflate(mixed) == adaptive)
        // A piece that is not the last ends with a full flush.
        let piece = try deflater.deflate(mixed, final: false)
        #expect(Array(piece.suffix(4)) == [0, 0, 0xFF, 0xFF])
        #expect(blockError { _ = try BlockDeflater(level: 0) }?.code == .invalidArgument)
    }

    @Test func crcCombineMatchesTheWhole() {
        var random = SeededRandom(seed: 9)
        let data = random.bytes(10_000)
        for cut in [0, 1, 4095, 5000, 9999, 10_000] {
            let first = CRC32.checksum(Array(data[..<cut])), second = CRC32.checksum(Array(data[cut...]))
            #expect(CRC32.combine(first, second, secondLength: UInt64(data.count - cut)) == CRC32.checksum(data))
        }
    }
}

/// A source that claims more bytes than it holds, like a file that shrank while it was read.
struct LyingSource: RandomAccessSource {
    let bytes: [UInt8]
    let claimedSize: UInt64
    var size: UInt64 { claimedSize }
    var name: String { "<lying>" }

    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) throws(ZipError) -> Int {
        try MemorySource(bytes).read(into: buffer, at: offset)
    }
}

/// ZipWriter: block-deflated and precompressed entries.
@Suite struct PrecompressedWriteTests {
    @Test func blockDeflatedEntryReadsEverywhere() throws {
        let dir = try TemporaryDirectory("blocks-interop")
        let data = mixedData(700_000)
        try dir.write("src/big.bin", data)
        let writer = try ZipWriter(path: dir.file("out.zip"), options: .deterministic())
        let deflater = try ParallelDeflater(level: 6, blockSize: ParallelDeflater.minimumBlockSize, jobs: 3)
        let written = try writer.addFile("big.bin", from: FileSource(path: dir.file("src/big.bin")), deflater: deflater)
        try writer.addFile("small.txt", contents: Array("after the blocks".utf8))
        try writer.finish()
        #expect(written.blocks?.blocks.count == 11)
        #expect(written.crc32 == CRC32.checksum(data) && written.method == .deflate)
        let archive = try ZipArchive(path: dir.file("out.zip"))
        #expect(try archive.contents(of: archive.requireEntry(named: "big.bin")) == data)
        try ExternalTool.unzip.require()
        try shell("unzip -tq out.zip", in: dir.path)
        try ExternalTool.python3.require()
        try shell("python3 -c \"import zipfile,sys; z=zipfile.ZipFile('out.zip'); sys.exit(z.testzip() is not None "
                  + "or z.read('big.bin') != open('src/big.bin','rb').read())\"", in: dir.path)
        try ExternalTool.bsdtar.require()
        try shell("mkdir x && bsdtar -xf out.zip -C x && cmp x/big.bin src/big.bin", in: dir.path)
    }

    @Test func sameBytesWhateverTheJobs() throws {
        let dir = try TemporaryDirectory("blocks-jobs")
        try dir.write("data", mixedData(400_000))
        var archives: [[UInt8]] = []
        for jobs in [1, 2, 5] {
            let writer = try ZipWriter(path: dir.file("\(jobs).zip"), options: .deterministic())
            try writer.addFile("data", from: FileSource(path: dir.file("data")),
                               deflater: ParallelDeflater(blockSize: ParallelDeflater.minimumBlockSize, jobs: jobs))
            try writer.finish()
            archives.append(try fileBytes(dir.file("\(jobs).zip")))
        }
        #expect(archives.allSatisfy { $0 == archives[0] })
    }

    @Test func precompressedEntriesMatchStreamedOnes() throws {
        let dir = try TemporaryDirectory("precompressed")
        let data = mixedData(50_000)
        let (stream, output) = try blockDeflate(data, ParallelDeflater(blockSize: ParallelDeflater.minimumBlockSize))
        let writer = try ZipWriter(path: dir.file("out.zip"), options: .deterministic())
        _ = try writer.addPrecompressed("deflated", method: .deflate, crc32: output.crc32, uncompressedSize: UInt64(data.count),
                                        compressedData: stream)
        try writer.addPrecompressed("stored", method: .stored, crc32: CRC32.checksum(data), uncompressedSize: UInt64(data.count),
                                    compressedData: MemoryStream(data), permissions: 0o755)
        let error = blockError {
            _ = try writer.addPrecompressed("short", method: .stored, crc32: 0, uncompressedSize: 5, compressedData: MemoryStream([1]))
        }
        #expect(error?.code == .invalidArgument && error?.entry == "short")
        try writer.finish()
        let archive = try ZipArchive(path: dir.file("out.zip"))
        #expect(try archive.contents(of: archive.requireEntry(named: "deflated")) == data)
        #expect(try archive.contents(of: archive.requireEntry(named: "stored")) == data)
        #expect(archive.entry(named: "stored")?.isExecutable == true)
        try ExternalTool.unzip.require()
        try shell("unzip -tq out.zip deflated stored", in: dir.path)
    }
}

/// OrderedPipeline: parallel work, results in order.
@Suite struct OrderedPipelineTests {
    /// Counts threads inside `produce` and items started but not yet consumed.
    final class Counter: @unchecked Sendable {
        let lock = NSLock()
        var running = 0, mostRunning = 0, started = 0, consumed = 0, mostAhead = 0
        func enter() {
            lock.lock()
            running += 1
            started += 1
            mostRunning = max(mostRunning, running)
            mostAhead = max(mostAhead, started - consumed)
            lock.unlock()
        }
        func leave() { lock.lock(); running -= 1; lock.unlock() }
        func consume() { lock.lock(); consumed += 1; lock.unlock() }
    }

    @Test(arguments: [1, 2, 4])
    func consumesInOrderWithinTheWindow(jobs: Int) throws {
        let counter = Counter()
        var seen: [Int] = []
        try OrderedPipeline.run(count: 200, jobs: jobs, window: 6, produce: { (index) throws(ZipError) -> Int in
            counter.enter()
            defer { counter.leave() }
            usleep(UInt32(index % 7) * 100)
            return index * index
        }, consume: { (index, square) throws(ZipError) in
            #expect(square == index * index)
            seen.append(index)
            counter.consume()
        })
        #expect(seen == Array(0..<200))
        #expect(counter.mostRunning <= jobs)
        #expect(counter.mostAhead <= 6)
    }

    @Test func firstErrorStopsEverything() {
        let error = zipError { () throws(ZipError) in
            try OrderedPipeline.run(count: 1000, jobs: 3, window: 4, produce: { (index) throws(ZipError) -> Int in
                if index == 10 { throw ZipError(.corruptData, "item 10") }
                return index
            }, consume: { (index, _) throws(ZipError) in
                #expect(index < 10)
            })
        }
        #expect(error?.message == "item 10")
        let consumeError = zipError { () throws(ZipError) in
            try OrderedPipeline.run(count: 100, jobs: 2, window: 100, produce: { (index) throws(ZipError) -> Int in index },
                                    consume: { (index, _) throws(ZipError) in
                if index == 3 { throw ZipError(.io, "disk full") }
            })
        }
        #expect(consumeError?.message == "disk full")
    }

    @Test func heavyItemsStillRun() throws {
        var total = 0
        try OrderedPipeline.run(count: 5, jobs: 2, window: 10, weights: [50, 1, 1, 50, 1],
                                produce: { (index) throws(ZipError) -> Int in index },
                                consume: { (_, value) throws(ZipError) in total += value })
        #expect(total == 10)
    }
}
