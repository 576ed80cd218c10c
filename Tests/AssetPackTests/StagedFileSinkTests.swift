import Foundation
import Testing
import TestSupport

@testable import AssetPack
@testable import AssetPackSystem
@testable import AssetPackZip

/// A run of deflated chunks delivered into a staging file: each chunk is decoded whole once its compressed bytes are
/// in, however the bytes arrive, checked against its own SHA-256 and reported at once; a chunk that is damaged, cut
/// short or followed by more bytes is a verification failure that names it, with the chunks before it reported.
struct StagedFileSinkTests {
    /// Chunks of text and noise, each deflated alone as the packer does (the last ends the stream).
    static func chunks() throws -> (data: [[UInt8]], deflated: [[UInt8]]) {
        var random = SeededRandom(seed: 0x5EC7)
        let data = [random.text(70_000), random.bytes(20_000), random.text(1), random.text(131_072) + random.bytes(5_000)]
        let deflater = try BlockDeflater(level: 6)
        let deflated = try data.enumerated().map { index, chunk in try deflater.deflate(chunk, final: index == data.count - 1) }
        return (data, deflated)
    }

    static func sha256(_ bytes: [UInt8]) -> String {
        var hash = AssetPack.SHA256()
        hash.update(bytes)
        return hash.finalizeHex()
    }

    /// Delivers `bytes` in pieces of `step` bytes into a sink for `data`'s chunks (compressed lengths `lengths`);
    /// the file's bytes, the chunks reported, and what `finish()` threw.
    static func deliver(_ bytes: [UInt8], step: Int, data: [[UInt8]], lengths: [Int]) throws
        -> (file: [UInt8], done: [Int], failure: AssetPackError?) {
        let dir = try TemporaryDirectory("staged-sink")
        let path = dir.file("staged")
        let fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0o644)
        try #require(fd >= 0)
        let file = Descriptor(fd, path: path)
        var offset: UInt64 = 0
        let segments = data.enumerated().map { index, chunk in
            defer { offset += UInt64(chunk.count) }
            return StagedFileSink.Segment(start: offset, size: UInt64(chunk.count),
                                          check: WriteCheck(path: AssetPath(validated: "big.bin"), size: UInt64(chunk.count), crc32: nil,
                                                            sha256: Self.sha256(chunk), hasher: PortableHasher(),
                                                            claim: "recorded for chunk \(index)", origin: ErrorLocation("big.bin.zip")))
        }
        var done: [Int] = []
        let sink = try StagedFileSink(file: file, segments: segments, encoding: .deflatedPieces(lengths, endsStream: true),
                                      progress: nil) { (index) throws(AssetPackError) in done.append(index) }
        var start = 0
        while start < bytes.count {
            let end = min(bytes.count, start + step)
            try bytes[start..<end].withUnsafeBytes { try sink.write($0) }
            start = end
        }
        var failure: AssetPackError?
        do { try sink.finish() } catch { failure = error }
        return (Array(try Data(contentsOf: URL(fileURLWithPath: path))), done, failure)
    }

    @Test(arguments: [1, 7, 4096, 1 << 20])
    func chunksArrivingInPiecesOfAnySizeAreDecodedCheckedAndReported(step: Int) throws {
        let (data, deflated) = try Self.chunks()
        let result = try Self.deliver(deflated.flatMap { $0 }, step: step, data: data, lengths: deflated.map(\.count))
        #expect(result.failure == nil, "\(String(describing: result.failure))")
        #expect(result.file == data.flatMap { $0 })
        #expect(result.done == [0, 1, 2, 3])
    }

    @Test func aDamagedChunkFailsVerificationAfterTheChunksBeforeItWereReported() throws {
        let (data, deflated) = try Self.chunks()
        var damaged = deflated
        damaged[1][damaged[1].count / 2] ^= 0x40
        let result = try Self.deliver(damaged.flatMap { $0 }, step: 4096, data: data, lengths: deflated.map(\.count))
        #expect(result.failure?.code == .verification)
        #expect(result.done == [0])
    }

    @Test func aRunCutShortOrFollowedByMoreBytesFailsVerification() throws {
        let (data, deflated) = try Self.chunks()
        let lengths = deflated.map(\.count), bytes = deflated.flatMap { $0 }
        let short = try Self.deliver(Array(bytes.dropLast(3)), step: 4096, data: data, lengths: lengths)
        #expect(short.failure?.code == .verification)
        #expect(short.done == [0, 1, 2])
        let long = try Self.deliver(bytes + [0, 1, 2], step: 4096, data: data, lengths: lengths)
        #expect(long.failure?.code == .verification)
        // A chunk whose compressed length is given wrongly does not decode as the index says.
        var shifted = lengths
        shifted[0] += 2
        shifted[1] -= 2
        let misplaced = try Self.deliver(bytes, step: 4096, data: data, lengths: shifted)
        #expect(misplaced.failure?.code == .verification)
        #expect(misplaced.done.isEmpty)
    }
}
