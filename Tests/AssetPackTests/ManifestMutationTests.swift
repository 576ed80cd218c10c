import Testing
import TestSupport
@testable import AssetPack
import AssetPackZip

/// Manifests damaged at random (bytes replaced by JSON's structural characters, removed, or added) read the
/// same whichever way they are read: a text the chunked reader takes is exactly what the whole-text reader
/// makes of it, at any chunk size, and a bundle's manifest read through the streaming path (checks,
/// identity, fallback) ends as the whole-text read does: the same manifest, or an error of the same kind.
@Suite struct ManifestMutationTests {
    static let pieces = Array(#",]}{"\:0a -"#.utf8) + [0x0A]

    /// `bytes` with one to three random changes.
    static func mutated(_ bytes: [UInt8], _ random: inout SeededRandom) -> [UInt8] {
        var bytes = bytes
        for _ in 0..<Int.random(in: 1...3, using: &random) {
            let at = Int.random(in: 0..<bytes.count, using: &random)
            switch Int.random(in: 0..<3, using: &random) {
            case 0: bytes[at] = pieces.randomElement(using: &random)!
            case 1: bytes.remove(at: at)
            default: bytes.insert(pieces.randomElement(using: &random)!, at: at)
            }
        }
        return bytes
    }

    @Test func damagedManifestsReadTheSameStreamedAsWhole() throws {
        var random = SeededRandom(seed: 0x6d616e69)
        let base = try ManifestStreamReaderTests.manifest(40).encodedJSON()
        var streamedSome = 0
        for _ in 0..<600 {
            let bytes = Self.mutated(base, &random)
            let whole = ManifestDirectReader.manifest(bytes)
            for chunk in [64, 301] {
                guard let streamed = try? ManifestStreamReaderTests.streamed(bytes, chunk: chunk) else { continue }
                streamedSome += 1
                #expect(streamed == whole, "chunk \(chunk): \(String(decoding: bytes, as: UTF8.self))")
            }
            let viaStream = Result { () throws(AssetPackError) -> BundleManifest? in
                try BundleManifest.locate(named: "b") { path in path.hasSuffix("manifest.json") ? MemoryStream(bytes) : nil }?.manifest
            }
            let viaWhole = Result { () throws(AssetPackError) -> BundleManifest in try BundleManifest.read(MemoryStream(bytes), origin: "b") }
            switch (viaStream, viaWhole) {
            case (.success(let one), .success(let two)): #expect(one == two)
            case (.failure(let one), .failure(let two)): #expect(one.code == two.code, "\(one.message) / \(two.message)")
            default: Issue.record("streamed \(viaStream), whole \(viaWhole): \(String(decoding: bytes, as: UTF8.self))")
            }
        }
        #expect(streamedSome > 40)  // damage outside the entries' syntax leaves many texts to the chunked reader
    }
}
