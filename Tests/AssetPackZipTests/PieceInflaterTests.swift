import CZlib
import Foundation
import Testing
import TestSupport

@testable import AssetPackZip

/// The decoder of whole pieces (content-defined chunks, blocks of a block-deflated entry): libdeflate where it loads,
/// else a streaming engine; every decoder must give the same outcome for pieces that end with a flush or with the
/// final block, for pieces that end too early or too late, and for room too small — and must leave the bytes after a
/// piece as they were.
@Suite(.enabled(if: PieceInflater.usesLibdeflate || ExternalTool.missingToolsFail,
                "libdeflate (Debian libdeflate0) is not installed: pieces are decoded by ISA-L or zlib only (set ASSETPACK_REQUIRE_TOOLS=1 to make this a failure)"))
struct PieceInflaterTests {
    /// Every decoder this process has: libdeflate's, and the streaming ones.
    static func decoders() throws -> [(String, PieceInflater)] {
        var decoders = [("default", try PieceInflater())]
        for engine in Inflater.Engine.allCases where Inflater.Engine.isAvailable(engine) {
            decoders.append((engine.rawValue, try PieceInflater(streamingWith: engine)))
        }
        return decoders
    }

    /// Raw deflate of `data` by zlib, ended by a full flush (a piece followed by others) or as a whole stream.
    static func piece(_ data: [UInt8], level: Int32 = 6, final: Bool) -> [UInt8] {
        InflaterEngineTests.deflate(data, level: level, flush: final ? Z_FINISH : Z_FULL_FLUSH)
    }

    /// Decodes `piece`, placed in a buffer between other bytes, with `decoder` into `room` bytes; the outcome, the
    /// bytes made, and whether the bytes around the piece are as they were.
    static func decode(_ piece: [UInt8], final: Bool, room: Int, with decoder: PieceInflater) throws
        -> (outcome: PieceInflater.Outcome, bytes: [UInt8], surroundingsKept: Bool) {
        let before: [UInt8] = [9, 8, 7], after: [UInt8] = [1, 2, 3, 4, 5, 6, 7]
        var buffer = before + piece + after
        var output = [UInt8](repeating: 0, count: room)
        let outcome = try buffer.withUnsafeMutableBytes { buffer in
            try output.withUnsafeMutableBytes { output in
                try decoder.inflate(buffer, piece: before.count..<(before.count + piece.count), final: final, into: output)
            }
        }
        let made = if case .made(let count) = outcome { Array(output[0..<count]) } else { [UInt8]() }
        return (outcome, made, buffer == before + piece + after)
    }

    @Test func flushedAndFinalPiecesDecodeAlikeWithEveryDecoder() throws {
        try #require(PieceInflater.usesLibdeflate, "libdeflate must load when ASSETPACK_REQUIRE_TOOLS=1 (Debian libdeflate0)")
        var random = SeededRandom(seed: 0x91EC)
        let samples: [[UInt8]] = [[], [0x61], random.text(70_000), random.bytes(65_536), [UInt8](repeating: 3, count: 200_000),
                                  random.text(9_000) + random.bytes(9_000)]
        for (name, decoder) in try Self.decoders() {
            for data in samples {
                for level: Int32 in [0, 1, 9] {
                    for final in [false, true] {
                        let piece = Self.piece(data, level: level, final: final)
                        let result = try Self.decode(piece, final: final, room: data.count + 100, with: decoder)
                        #expect(result.outcome == .made(data.count), "\(name): \(data.count) bytes, level \(level), final \(final)")
                        #expect(result.bytes == data, "\(name)")
                        #expect(result.surroundingsKept, "\(name): the bytes after the piece were not put back")
                    }
                }
            }
        }
    }

    @Test func piecesThatEndWrongAreNamed() throws {
        var random = SeededRandom(seed: 0xE2D)
        let data = random.text(50_000)
        let flushed = Self.piece(data, final: false), whole = Self.piece(data, final: true)
        for (name, decoder) in try Self.decoders() {
            // A final block where a flush should be: the stream ends early.
            #expect(try Self.decode(whole, final: false, room: 60_000, with: decoder).outcome == .endsStreamEarly, "\(name)")
            // Bytes after the final block.
            #expect(try Self.decode(whole + [0, 0], final: true, room: 60_000, with: decoder).outcome == .unusedBytes, "\(name)")
            // A flushed piece where the stream must end: no final block (libdeflate reads past the end and refuses it).
            let missing = try? Self.decode(flushed, final: true, room: 60_000, with: decoder).outcome
            #expect(missing == nil || missing == .missingFinalBlock, "\(name): \(String(describing: missing))")
            // Less room than the piece makes.
            #expect(try Self.decode(flushed, final: false, room: 49_999, with: decoder).outcome == .tooLong, "\(name)")
            #expect(try Self.decode(whole, final: true, room: 10, with: decoder).outcome == .tooLong, "\(name)")
        }
    }

    @Test func damagedPiecesAreRefusedOrDecodeWithoutHarm() throws {
        var random = SeededRandom(seed: 0xDA4)
        let data = random.text(20_000) + random.bytes(3_000)
        let seedPiece = Self.piece(data, final: false)
        for (name, decoder) in try Self.decoders() {
            var refused = 0
            for _ in 0..<200 {
                var piece = seedPiece
                for _ in 0..<3 { piece[Int(random.next() % UInt64(piece.count - 4))] ^= UInt8(1 << (random.next() % 8)) }
                do {
                    let result = try Self.decode(piece, final: false, room: 30_000, with: decoder)
                    #expect(result.surroundingsKept, "\(name)")
                    if result.outcome != .made(data.count) || result.bytes != data { refused += 1 }
                } catch let error as ZipError {
                    #expect(error.code == .corruptData, "\(name): \(error)")
                    refused += 1
                }
            }
            #expect(refused > 150, "\(name): only \(refused) of 200 damaged pieces were told apart from the original")
        }
    }
}
