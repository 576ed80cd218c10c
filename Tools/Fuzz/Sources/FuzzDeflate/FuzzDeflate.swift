// libFuzzer target: arbitrary bytes as data, cut into pieces and compressed by BlockDeflater with libdeflate
// (runs reopened by DeflateStreamReopener, noise segments stored), the pieces joined into one stream. zlib
// must decode the joined stream to the data, ending exactly at its last byte, and each piece alone to its
// bytes. The first byte picks the level, whether noise is stored, and where the pieces are cut.
@testable import AssetPackZip

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 1, BlockDeflater.Engine.isAvailable(.libdeflate) else { return 0 }
    let choice = Int(data[0])
    let bytes = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    let level = [1, 6, 9][choice % 3]
    let storesNoise = choice & 4 != 0
    let pieceCount = 1 + (choice >> 3) % 4
    let cuts = (1..<pieceCount).map { bytes.count * $0 / pieceCount }
    let bounds = zip([0] + cuts, cuts + [bytes.count])
    do {
        let deflater = try BlockDeflater(level: level, storesNoise: storesNoise, engine: .libdeflate)
        var joined: [UInt8] = []
        for (index, (start, end)) in bounds.enumerated() {
            let piece = Array(bytes[start..<end])
            let final = index == pieceCount - 1
            let compressed = try deflater.deflate(piece, final: final)
            let alone = inflate(compressed)
            if alone.bytes != piece || alone.consumed != compressed.count || alone.finished != final {
                fatalError("piece \(index) of \(piece.count) bytes decodes to \(alone.bytes.count), \(alone.consumed) of \(compressed.count) used")
            }
            joined += compressed
        }
        let whole = inflate(joined)
        if whole.bytes != bytes || whole.consumed != joined.count || !whole.finished {
            fatalError("the joined stream decodes to \(whole.bytes.count) bytes of \(bytes.count), \(whole.consumed) of \(joined.count) used")
        }
    } catch {
        fatalError("compressing \(bytes.count) bytes failed: \(error)")
    }
    return 0
}

/// Decodes `stream` with zlib: the bytes, the input used, and whether the final block was reached.
func inflate(_ stream: [UInt8]) -> (bytes: [UInt8], consumed: Int, finished: Bool) {
    guard let inflater = try? Inflater(engine: .zlib) else { fatalError("zlib did not start") }
    var output: [UInt8] = []
    var room = [UInt8](repeating: 0, count: 1 << 16)
    var consumed = 0
    while true {
        guard let step = try? stream[consumed...].withUnsafeBytes({ input in
            try room.withUnsafeMutableBytes { try inflater.inflate(input, into: $0) }
        }) else { return (output, consumed, false) }
        output += room[0..<step.produced]
        consumed += step.consumed
        if step.finished || (step.consumed == 0 && step.produced == 0) { return (output, consumed, step.finished) }
    }
}
