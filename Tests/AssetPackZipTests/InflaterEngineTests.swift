import CZlib
import Foundation
import Testing
import TestSupport

@testable import AssetPackZip

/// ISA-L against zlib: the same bytes, the same end of stream, the same refusals, the same CRC-32 — on
/// streams zlib wrote at every level and on those streams damaged (bits flipped, bytes replaced, cut short,
/// followed by other data). Tools/Fuzz's `FuzzInflate` runs the same comparison on fuzzed input.
@Suite(.enabled(if: Inflater.Engine.isAvailable(.isal) || ExternalTool.missingToolsFail,
                "ISA-L (Debian libisal-dev) is not installed: only zlib decodes (set ASSETPACK_REQUIRE_TOOLS=1 to make this a failure)"))
struct InflaterEngineTests {
    /// What decoding a stream gave: its bytes and where the deflate data ended, or no complete stream.
    enum Outcome: Equatable, CustomStringConvertible {
        case decoded([UInt8], consumed: Int)
        case refused

        var description: String {
            switch self {
            case .decoded(let bytes, let consumed): "\(bytes.count) bytes, CRC-32 \(CRC32.checksum(bytes)), from \(consumed) input bytes"
            case .refused: "refused"
            }
        }
    }

    /// Decodes `stream` with `engine`, handing it input `inChunk` and output room `outChunk` bytes at a time;
    /// at most `limit` bytes come out.
    static func decode(_ stream: [UInt8], engine: Inflater.Engine, inChunk: Int, outChunk: Int, limit: Int = 1 << 22) -> Outcome {
        decodeGivingReason(stream, engine: engine, inChunk: inChunk, outChunk: outChunk, limit: limit).outcome
    }

    /// ``decode(_:engine:inChunk:outChunk:limit:)``, with the decoder's words when it refused the data.
    static func decodeGivingReason(_ stream: [UInt8], engine: Inflater.Engine, inChunk: Int, outChunk: Int,
                                   limit: Int = 1 << 22) -> (outcome: Outcome, reason: String?) {
        guard let inflater = try? Inflater(engine: engine) else { return (.refused, "no inflater") }
        var output: [UInt8] = []
        var room = [UInt8](repeating: 0, count: outChunk)
        var position = 0
        while output.count <= limit {
            let end = min(stream.count, position + inChunk)
            let step: Inflater.Step
            do {
                step = try stream[position..<end].withUnsafeBytes { input in
                    try room.withUnsafeMutableBytes { try inflater.inflate(input, into: $0) }
                }
            } catch {
                return (.refused, (error as? ZipError)?.message ?? "\(error)")
            }
            output += room[0..<step.produced]
            position += step.consumed
            if step.finished { return (.decoded(output, consumed: position), nil) }
            if step.consumed == 0 && step.produced == 0 && end == stream.count { return (.refused, "cut short") }
        }
        return (.refused, "too large")
    }

    /// zlib's refusal of a Huffman code set that does not fill its code space (RFC 1951 leaves such sets
    /// undefined; zlib refuses them, ISA-L decodes with them as long as no unused code appears).
    static func isIncompleteCodeSet(_ reason: String?) -> Bool {
        guard let reason else { return false }
        return ["invalid literal/lengths set", "invalid distances set", "invalid code lengths set"].contains { reason.hasSuffix($0) }
    }

    /// Raw deflate of `data` by zlib at `level` with `strategy`: a whole stream, or with `flush` `Z_FULL_FLUSH` a piece
    /// of one that ends with a full flush.
    static func deflate(_ data: [UInt8], level: Int32, strategy: Int32 = Z_DEFAULT_STRATEGY, flush: Int32 = Z_FINISH) -> [UInt8] {
        var stream = z_stream()
        #expect(deflateInit2_(&stream, level, Z_DEFLATED, -MAX_WBITS, 8, strategy, ZLIB_VERSION,
                              Int32(MemoryLayout<z_stream>.size)) == Z_OK)
        defer { deflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(data.count))) + 64)
        var input = data
        let produced = input.withUnsafeMutableBufferPointer { inBuffer in
            output.withUnsafeMutableBufferPointer { outBuffer in
                stream.next_in = inBuffer.baseAddress
                stream.avail_in = uInt(inBuffer.count)
                stream.next_out = outBuffer.baseAddress
                stream.avail_out = uInt(outBuffer.count)
                let status = CZlib.deflate(&stream, flush)
                return status == (flush == Z_FINISH ? Z_STREAM_END : Z_OK) ? outBuffer.count - Int(stream.avail_out) : -1
            }
        }
        #expect(produced >= 0)
        return Array(output[0..<max(produced, 0)])
    }

    /// Data of several kinds: text, noise, long runs, matches reaching back the whole 32 KiB window.
    static func samples() -> [[UInt8]] {
        var random = SeededRandom(seed: 0x15A1)
        let text = random.text(300_000)
        let noise = random.bytes(70_000)
        var farMatches = random.bytes(32_768)
        farMatches += farMatches + random.bytes(100) + farMatches
        return [[], [0x61], text, noise, [UInt8](repeating: 7, count: 200_000), farMatches,
                Array(text[0..<5_000] + noise[0..<5_000] + text[0..<5_000])]
    }

    static func requireISAL() throws {
        try #require(Inflater.Engine.isAvailable(.isal), "ISA-L must load when ASSETPACK_REQUIRE_TOOLS=1 (Debian libisal2)")
    }

    @Test func zlibStreamsOfEveryLevelAndStrategyDecodeToTheSameBytes() throws {
        try Self.requireISAL()
        var random = SeededRandom(seed: 7)
        for (index, data) in Self.samples().enumerated() {
            for level in [0, 1, 6, 9] as [Int32] {
                for strategy in [Z_DEFAULT_STRATEGY, Z_HUFFMAN_ONLY, Z_RLE, Z_FIXED] {
                    let stream = Self.deflate(data, level: level, strategy: strategy) + random.bytes(9)  // then other data
                    let inChunk = [1, 7, 4096, 1 << 20][Int(random.next() % 4)]
                    let outChunk = [1, 300, 65_536, 1 << 20][Int(random.next() % 4)]
                    let isal = Self.decode(stream, engine: .isal, inChunk: inChunk, outChunk: outChunk)
                    #expect(isal == .decoded(data, consumed: stream.count - 9),
                            "\(isal) for \(data.count) bytes from \(stream.count - 9): sample \(index), level \(level), strategy \(strategy), chunks \(inChunk)/\(outChunk)")
                    let zlib = Self.decode(stream, engine: .zlib, inChunk: inChunk, outChunk: outChunk)
                    #expect(zlib == isal, "zlib: \(zlib), ISA-L: \(isal)")
                }
            }
        }
    }

    @Test func damagedStreamsAreRefusedOrDecodedAlikeByBothEngines() throws {
        try Self.requireISAL()
        var random = SeededRandom(seed: 0xBAD)
        let seeds = Self.samples().filter { !$0.isEmpty }.flatMap { data in
            [Self.deflate(Array(data.prefix(20_000)), level: 6), Self.deflate(Array(data.prefix(3_000)), level: 1, strategy: Z_FIXED)]
        }
        var refused = 0, cases = 0, tolerated = 0
        for seed in seeds {
            for round in 0..<150 {
                var stream = seed
                switch round % 4 {
                case 0:  // one bit flipped
                    let bit = Int(random.next() % UInt64(stream.count * 8))
                    stream[bit / 8] ^= 1 << UInt8(bit % 8)
                case 1:  // a few bytes replaced
                    for _ in 0..<3 { stream[Int(random.next() % UInt64(stream.count))] = UInt8(truncatingIfNeeded: random.next()) }
                case 2:  // cut short
                    stream = Array(stream.prefix(Int(random.next() % UInt64(stream.count))))
                default:  // the header bytes replaced (block types, code lengths)
                    for index in 0..<min(8, stream.count) where random.next() % 2 == 0 { stream[index] = UInt8(truncatingIfNeeded: random.next()) }
                }
                let chunks = (in: [1, 64, 1 << 20][round % 3], out: [1, 4096, 1 << 20][(round / 3) % 3])
                let (zlib, reason) = Self.decodeGivingReason(stream, engine: .zlib, inChunk: chunks.in, outChunk: chunks.out)
                let isal = Self.decode(stream, engine: .isal, inChunk: chunks.in, outChunk: chunks.out)
                cases += 1
                if isal != zlib, zlib == .refused, Self.isIncompleteCodeSet(reason) {
                    tolerated += 1  // the one known difference: the size and CRC-32 checks decide such data
                    continue
                }
                #expect(isal == zlib, "ISA-L: \(isal), zlib: \(zlib) (\(reason ?? "")); round \(round) of a \(seed.count)-byte stream, chunks \(chunks)")
                if zlib == .refused { refused += 1 }
            }
        }
        // The damage must be of both kinds: refused streams and streams that still decode (to other bytes).
        #expect(refused > cases / 10 && refused < cases)
        #expect(tolerated < cases / 20, "\(tolerated) of \(cases) damaged streams decoded by ISA-L only")
    }

    @Test func crc32OfISALEqualsZlibsForEveryLengthAndSplit() throws {
        try Self.requireISAL()
        #expect(CRC32.usesISAL)
        var random = SeededRandom(seed: 0xC3C)
        let data = random.bytes(70_000)
        for length in [0, 1, 2, 3, 15, 16, 17, 63, 64, 65, 255, 256, 1000, 4095, 4096, 65_537, 70_000] {
            let split = length == 0 ? 0 : Int(random.next() % UInt64(length))
            var crc = CRC32()
            data[0..<split].withUnsafeBytes { crc.update($0) }
            data[split..<length].withUnsafeBytes { crc.update($0) }
            let zlib = data[0..<length].withUnsafeBytes { UInt32(CZlib.crc32(0, $0.baseAddress?.assumingMemoryBound(to: Bytef.self), uInt(length))) }
            #expect(crc.value == zlib, "\(length) bytes split at \(split)")
        }
    }
}
