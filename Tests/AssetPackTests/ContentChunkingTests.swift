import AssetPack
import Testing
import TestSupport

/// Content-defined chunking: boundaries that depend on the bytes only, in the sizes the rule promises, which
/// come back after an insertion.
@Suite struct ContentChunkingTests {
    /// The chunks of `bytes`, read in pieces of `piece` bytes.
    func chunks(_ bytes: [UInt8], by chunking: ContentChunking = .standard, piece: Int = 1 << 20) throws -> FileChunks {
        var offset = 0
        return try FileChunks.scan(by: chunking, hashesFile: true) { (buffer) throws(AssetPackError) -> Int in
            let count = min(buffer.count, piece, bytes.count - offset)
            bytes.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[offset..<offset + count])) }
            offset += count
            return count
        }
    }

    @Test func theBoundariesDependOnTheBytesNotOnHowTheyAreRead() throws {
        var random = SeededRandom(seed: 5)
        let bytes = random.bytes(1_500_000)
        let whole = try chunks(bytes)
        for piece in [1, 4093, 65_536, 300_001] {
            #expect(try chunks(bytes, piece: piece) == whole, "read \(piece) bytes at a time")
        }
        #expect(whole.lengths.reduce(0, +) == bytes.count && whole.fileSHA256 == sha256Hex(bytes))
        var offset = 0
        for (length, hash) in zip(whole.lengths, whole.sha256) {
            #expect(hash == sha256Hex(Array(bytes[offset..<offset + length])))
            offset += length
        }
    }

    @Test(arguments: [12, 14, 16])
    func chunksHaveTheSizesTheRulePromises(averageBits: Int) throws {
        let chunking = try #require(ContentChunking(averageBits: averageBits))
        var random = SeededRandom(seed: UInt64(averageBits))
        let bytes = random.bytes(chunking.average * 200) + random.text(chunking.average * 200)
        let lengths = try chunks(bytes, by: chunking).lengths
        #expect(lengths.dropLast().allSatisfy { (chunking.minimum...chunking.maximum).contains($0) })
        let mean = Double(bytes.count) / Double(lengths.count)
        #expect(mean > 0.7 * Double(chunking.average) && mean < 1.5 * Double(chunking.average), "mean chunk \(mean) bytes")
        // Zeros have no boundary but the maximum.
        #expect(try chunks([UInt8](repeating: 0, count: chunking.maximum * 3), by: chunking).lengths == Array(repeating: chunking.maximum, count: 3))
    }

    @Test func anInsertionChangesOnlyTheChunksAroundIt() throws {
        var random = SeededRandom(seed: 9)
        let bytes = random.text(4_000_000)
        let before = try chunks(bytes), after = try chunks(Array(repeating: 0x58, count: 1000) + bytes)
        let old = Set(before.sha256.compactMap { $0 })
        let new = after.sha256.compactMap { $0 }.filter { !old.contains($0) }
        #expect(new.count <= 2, "\(new.count) of \(after.lengths.count) chunks are new after 1000 bytes inserted at the start")
        let middle = bytes.count / 2
        let edited = Array(bytes[..<middle]) + Array("EDITED".utf8) + Array(bytes[(middle + 6)...])
        #expect(try chunks(edited).sha256.filter { !old.contains($0 ?? "") }.count <= 2, "a change in the middle")
    }

    @Test func theNameCarriesTheRuleAndUnknownNamesAreRefused() {
        #expect(ContentChunking.standard.name == "gear/65536")
        #expect(ContentChunking(name: "gear/65536") == .standard)
        #expect(ContentChunking(name: "gear/16384")?.maximum == 65_536)
        for name in ["gear/65535", "gear/1024", "gear/0", "fastcdc/65536", "gear", "gear/65536/1", ""] {
            #expect(ContentChunking(name: name) == nil, "\(name)")
        }
        #expect(ContentChunking(averageBits: 11) == nil && ContentChunking(averageBits: 25) == nil)
    }
}

/// 64 lowercase hex digits of the SHA-256 of `bytes` (the library's SHA-256, tested on its own against FIPS vectors).
private func sha256Hex(_ bytes: [UInt8]) -> String {
    var hash = AssetPack.SHA256()
    hash.update(bytes)
    return hash.finalizeHex()
}
