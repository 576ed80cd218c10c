import Foundation
import Testing
import TestSupport

@testable import AssetPackZip

/// libdeflate against zlib as ``BlockDeflater``'s encoder: pieces of every shape (final, ended for more,
/// noise stored between compressed runs, runs longer than libdeflate's 4 MiB limit, empty) decode with zlib
/// to the input, alone and joined into one stream, and libdeflate's output is no larger than zlib's at the
/// same level. ``DeflateStreamReopener``, which joins libdeflate's finished streams, is checked on its own.
@Suite(.enabled(if: BlockDeflater.Engine.isAvailable(.libdeflate) || ExternalTool.missingToolsFail,
                "libdeflate (Debian libdeflate0) is not installed: only zlib compresses (set ASSETPACK_REQUIRE_TOOLS=1 to make this a failure)"))
struct DeflaterEngineTests {
    static func requireLibdeflate() throws {
        try #require(BlockDeflater.Engine.isAvailable(.libdeflate), "libdeflate must load when ASSETPACK_REQUIRE_TOOLS=1 (Debian libdeflate0)")
    }

    /// Pieces of several kinds: empty, one byte, exactly a segment, text, noise, noise and text alternating
    /// segment by segment, and text longer than one libdeflate run.
    static func pieces() -> [[UInt8]] {
        var random = SeededRandom(seed: 0xDEF1)
        let segment = BlockDeflater.segmentSize
        let noise = random.bytes(3 * segment)
        let text = random.text(9 * segment + 17)
        var mixed: [UInt8] = []
        for index in 0..<3 {
            mixed += noise[(index * segment)..<((index + 1) * segment)]
            mixed += text[(index * segment)..<((index + 1) * segment)]
        }
        return [[], [0x61], Array(text[0..<segment]), text, noise, mixed + noise[0..<100],
                random.text(LibdeflatePieceCompressor.runLimit + 3 * segment + 5)]
    }

    /// Decodes `stream` with zlib; the bytes and how much input it used, and whether it ended.
    static func inflate(_ stream: [UInt8]) throws -> (bytes: [UInt8], consumed: Int, finished: Bool) {
        let inflater = try Inflater(engine: .zlib)
        var output: [UInt8] = []
        var room = [UInt8](repeating: 0, count: 1 << 16)
        var consumed = 0
        while true {
            let step = try stream[consumed...].withUnsafeBytes { input in
                try room.withUnsafeMutableBytes { try inflater.inflate(input, into: $0) }
            }
            output += room[0..<step.produced]
            consumed += step.consumed
            if step.finished || (step.consumed == 0 && step.produced == 0) { return (output, consumed, step.finished) }
        }
    }

    @Test(arguments: BlockDeflater.Engine.allCases)
    func piecesJoinIntoOneStreamAndEachDecodesAlone(engine: BlockDeflater.Engine) throws {
        if engine == .libdeflate { try Self.requireLibdeflate() }
        let pieces = Self.pieces()
        for level in [1, 6, 9] {
            let deflater = try BlockDeflater(level: level, engine: engine)
            var joined: [UInt8] = []
            for (index, piece) in pieces.enumerated() {
                let final = index == pieces.count - 1
                let compressed = try deflater.deflate(piece, final: final)
                let alone = try Self.inflate(compressed)
                #expect(alone.bytes == piece, "\(engine) level \(level), piece \(index) decodes to \(alone.bytes.count) bytes, not \(piece.count)")
                #expect(alone.consumed == compressed.count && alone.finished == final,
                        "\(engine) level \(level), piece \(index): \(alone.consumed) of \(compressed.count) bytes used, finished \(alone.finished)")
                if !final { #expect(compressed.suffix(4) == [0, 0, 0xFF, 0xFF], "\(engine): piece \(index) ends with a full flush's empty stored block") }
                joined += compressed
            }
            let whole = try Self.inflate(joined)
            #expect(whole.bytes == pieces.flatMap { $0 } && whole.finished && whole.consumed == joined.count,
                    "\(engine) level \(level): the joined stream decodes to \(whole.bytes.count) bytes")
        }
    }

    /// A piece that starts mid-segment of its data (a content-defined chunk) is judged at the data's segment
    /// boundaries: noise that fills a segment of the data is stored (found verbatim in the output) wherever the piece
    /// begins, and the piece still decodes to its bytes.
    @Test(arguments: BlockDeflater.Engine.allCases)
    func segmentsAreJudgedWhereTheyAreInTheData(engine: BlockDeflater.Engine) throws {
        if engine == .libdeflate { try Self.requireLibdeflate() }
        var random = SeededRandom(seed: 0xA11)
        let segment = BlockDeflater.segmentSize
        let noise = random.bytes(segment)
        let piece = random.text(segment / 2) + noise + random.text(segment / 2)  // the noise fills one segment of the data
        let deflater = try BlockDeflater(level: 6, engine: engine)
        func compressed(startingAt offset: UInt64) throws -> [UInt8] {
            var output = [UInt8](repeating: 0, count: BlockDeflater.capacity(for: piece.count))
            var position = 0
            let count = try output.withUnsafeMutableBytes { room in
                try deflater.deflate(count: piece.count, final: true, startingAt: offset, into: room) { (segment) throws(ZipError) in
                    piece[position..<(position + segment.count)].withUnsafeBytes { segment.copyMemory(from: $0) }
                    position += segment.count
                }
            }
            return Array(output[0..<count])
        }
        /// Whether most of the noise (a stored block holds at most 65,535 bytes) is in `bytes` as it is.
        func holdsTheNoiseVerbatim(_ bytes: [UInt8]) -> Bool {
            let stretch = Array(noise[0..<(segment / 2)])
            return bytes.count >= stretch.count && (0...(bytes.count - stretch.count)).contains {
                bytes[$0..<($0 + 16)] == stretch[0..<16] && Array(bytes[$0..<($0 + stretch.count)]) == stretch
            }
        }
        let aligned = try compressed(startingAt: UInt64(3 * segment + segment / 2)), unaligned = try compressed(startingAt: 0)
        let decoded = try Self.inflate(aligned).bytes == piece && (try Self.inflate(unaligned)).bytes == piece
        let stored = holdsTheNoiseVerbatim(aligned), storedUnaligned = holdsTheNoiseVerbatim(unaligned)
        #expect(decoded)
        #expect(stored, "\(engine): the noise segment is stored")
        #expect(!storedUnaligned, "\(engine): judged from the piece's start, each segment is half text")
    }

    @Test func theStreamingAndTheBufferVariantsWriteTheSameBytes() throws {
        try Self.requireLibdeflate()
        let deflater = try BlockDeflater(level: 6, engine: .libdeflate)
        for piece in Self.pieces() {
            var output = [UInt8](repeating: 0, count: BlockDeflater.capacity(for: piece.count))
            var position = 0
            let count = try output.withUnsafeMutableBytes { room in
                try deflater.deflate(count: piece.count, final: false, into: room) { (segment) throws(ZipError) in
                    piece[position..<(position + segment.count)].withUnsafeBytes { segment.copyMemory(from: $0) }
                    position += segment.count
                }
            }
            #expect(Array(output[0..<count]) == (try deflater.deflate(piece, final: false)))
        }
    }

    /// At the default level and above, libdeflate's output is about zlib's size: 0.14% larger on the benchmark's
    /// app tree, 1.2% smaller on Python's standard library, 0.6% smaller on a compiler binary. This test's
    /// word salad (19 words in random order) is its worst case known: 9% larger.
    @Test func libdeflateIsAsSmallAsZlibAtTheSameLevel() throws {
        try Self.requireLibdeflate()
        var random = SeededRandom(seed: 0x5125)
        let text = random.text(2 << 20)
        for level in [6, 9] {
            let zlib = try BlockDeflater(level: level, engine: .zlib).deflate(text).count
            let libdeflate = try BlockDeflater(level: level, engine: .libdeflate).deflate(text).count
            #expect(Double(libdeflate) <= Double(zlib) * 1.1, "level \(level): libdeflate \(libdeflate) bytes, zlib \(zlib)")
        }
    }

    /// A finished stream zlib wrote (compressed blocks, or stored ones for noise), reopened, then ended by an
    /// empty final block: it decodes to the same bytes and uses every byte.
    @Test func aReopenedStreamContinues() throws {
        var random = SeededRandom(seed: 0x0FE1)
        let reopener = try DeflateStreamReopener()
        for data in [[], random.text(50_000), random.bytes(70_000), [UInt8](repeating: 1, count: 9)] {
            for level in [1, 6] {
                var stream = try BlockDeflater(level: level, engine: .zlib).deflate(data)
                let finished = stream.count
                stream += [UInt8](repeating: 0xEE, count: DeflateStreamReopener.growth)
                let count = try stream.withUnsafeMutableBytes { try reopener.reopen($0, count: finished, decodedCount: data.count) }
                let continued = Array(stream[0..<count]) + [0x03, 0x00]  // an empty final block with fixed codes
                let decoded = try Self.inflate(continued)
                #expect(decoded.bytes == data && decoded.finished && decoded.consumed == continued.count,
                        "\(data.count) bytes at level \(level): \(decoded.bytes.count) decoded, \(decoded.consumed) of \(continued.count) used")
            }
        }
    }

    @Test func aStreamThatIsNotOneWholeStreamIsNotReopened() throws {
        var random = SeededRandom(seed: 0xBAD1)
        let data = random.text(20_000)
        let stream = try BlockDeflater(level: 6, engine: .zlib).deflate(data)
        let reopener = try DeflateStreamReopener()
        for (damaged, decodedCount) in [(Array(stream.dropLast(3)), data.count), (stream + [1, 2, 3], data.count),
                                        (stream, data.count + 1), (stream, data.count - 1)] {
            var buffer = damaged + [UInt8](repeating: 0, count: DeflateStreamReopener.growth)
            #expect(throws: ZipError.self) {
                try buffer.withUnsafeMutableBytes { try reopener.reopen($0, count: damaged.count, decodedCount: decodedCount) }
            }
            let error = try? #require(throws: ZipError.self) {
                try buffer.withUnsafeMutableBytes { try reopener.reopen($0, count: damaged.count, decodedCount: decodedCount) }
            }
            #expect(error?.code == .corruptData)
        }
    }

    @Test func parallelBlocksFromLibdeflateAreTheSameOnAnyNumberOfThreads() throws {
        try Self.requireLibdeflate()
        var random = SeededRandom(seed: 0xB10C)
        let data = random.text(600_000) + random.bytes(200_000) + random.text(300_000)
        var outputs: [[UInt8]] = []
        for jobs in [1, 3] {
            var output: [UInt8] = []
            let result = try ParallelDeflater(level: 6, blockSize: 256 << 10, jobs: jobs)
                .compress(MemorySource(data)) { (bytes) throws(ZipError) in output += bytes }
            #expect(result.index.blocks.count == 5 && result.crc32 == CRC32.checksum(data))
            #expect(try Self.inflate(output).bytes == data)
            outputs.append(output)
        }
        #expect(outputs[0] == outputs[1])
    }
}
