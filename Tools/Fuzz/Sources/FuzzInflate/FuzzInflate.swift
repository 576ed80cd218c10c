// libFuzzer target: arbitrary bytes as a raw deflate stream, decoded by ISA-L and by zlib with the same
// chunking. Both must decode the same bytes and stop at the same input byte, or both refuse — except that
// ISA-L decodes with a Huffman code set that does not fill its code space, which zlib refuses (the size and
// CRC-32 checks that follow every decode in assetpack judge such data). The first byte picks the chunk sizes.
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
    return 0
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
