// libFuzzer target: arbitrary bytes as a raw deflate stream, decoded by ISA-L and by zlib with the same
// chunking. Both must decode the same bytes and stop at the same input byte, or both refuse — except that
// ISA-L decodes with a Huffman code set that does not fill its code space, which zlib refuses (the size and
// CRC-32 checks that follow every decode in assetpack judge such data). The first byte picks the chunk sizes.
// Where libdeflate loads, the stream zlib decoded is also decoded whole as a piece (`PieceInflater`, as a bundle's
// chunks are): final, and with a flush's end (the decoder's trailer after it); it must make the same bytes or name
// where the piece ended wrong, and leave the bytes after it as they were.
@testable import AssetPackZip

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 1, Inflater.Engine.isAvailable(.isal) else { return 0 }
    let chunking = data[0]
    let stream = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    let inChunk = [1, 3, 64, 4096, 1 << 20][Int(chunking & 7) % 5]
    let outChunk = [1, 2, 300, 32_768, 1 << 20][Int(chunking >> 3 & 7) % 5]
    let zlib = decode(stream, engine: .zlib, inChunk: inChunk, outChunk: outChunk)
    let isal = decode(stream, engine: .isal, inChunk: inChunk, outChunk: outChunk)
    switch (zlib, isal) {
    case (.decoded(let a, let endA), .decoded(let b, let endB)):
        if a != b || endA != endB {
            fatalError("zlib decoded \(a.count) bytes ending at \(endA), ISA-L \(b.count) bytes ending at \(endB)")
        }
    case (.refused(let reason), .decoded(let bytes, _)):
        if !reason.hasSuffix("lengths set") && !reason.hasSuffix("distances set") {
            fatalError("zlib refused (\(reason)), ISA-L decoded \(bytes.count) bytes")
        }
    case (.decoded(let bytes, _), .refused(let reason)):
        fatalError("zlib decoded \(bytes.count) bytes, ISA-L refused (\(reason))")
    case (.refused, .refused):
        break
    }
    if case .decoded(let bytes, let end) = zlib { checkPiece(Array(stream[0..<end]), decodesTo: bytes) }
    return 0
}

/// `piece`, a whole deflate stream zlib decoded to `expected`, decoded by libdeflate as a final piece must make the
/// same bytes; as a piece that should end with a flush it ended the stream early. Either way the bytes after it stay.
func checkPiece(_ piece: [UInt8], decodesTo expected: [UInt8]) {
    guard PieceInflater.usesLibdeflate, let decoder = try? PieceInflater() else { return }
    let after: [UInt8] = [0xA5, 0x5A, 0xA5, 0x5A, 0xA5, 0x5A]
    for final in [true, false] {
        var buffer = piece + after
        var output = [UInt8](repeating: 0, count: expected.count + 64)
        let outcome = try? buffer.withUnsafeMutableBytes { buffer in
            try output.withUnsafeMutableBytes {
                try decoder.inflate(buffer, piece: 0..<piece.count, final: final, into: $0)
            }
        }
        if buffer != piece + after { fatalError("the bytes after a piece were not put back (final: \(final))") }
        if final {
            guard outcome == .made(expected.count), Array(output[0..<expected.count]) == expected else {
                fatalError("zlib decoded \(expected.count) bytes, libdeflate's piece: \(String(describing: outcome))")
            }
        } else if outcome != .endsStreamEarly {
            fatalError("a whole stream taken for a flushed piece: \(String(describing: outcome)), not endsStreamEarly")
        }
    }
}

enum Outcome {
    case decoded([UInt8], end: Int)
    case refused(String)
}

/// Decodes `stream` handing the inflater `inChunk` input and `outChunk` output bytes at a time (at most
/// 1 MiB out).
func decode(_ stream: [UInt8], engine: Inflater.Engine, inChunk: Int, outChunk: Int) -> Outcome {
    let inflater: Inflater
    do { inflater = try Inflater(engine: engine) } catch { return .refused(error.message) }
    var output: [UInt8] = []
    var room = [UInt8](repeating: 0, count: outChunk)
    var position = 0
    while output.count <= 1 << 20 {
        let end = min(stream.count, position + inChunk)
        let step: Inflater.Step
        do {
            step = try stream[position..<end].withUnsafeBytes { input in
                try room.withUnsafeMutableBytes { try inflater.inflate(input, into: $0) }
            }
        } catch {
            return .refused((error as? ZipError)?.message ?? "\(error)")
        }
        output += room[0..<step.produced]
        position += step.consumed
        if step.finished { return .decoded(output, end: position) }
        if step.consumed == 0 && step.produced == 0 && end == stream.count { return .refused("cut short") }
    }
    return .refused("over 1 MiB")
}
