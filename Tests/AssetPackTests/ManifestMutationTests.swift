import Testing
import TestSupport
@testable import AssetPack
import AssetPackZip

/// Manifests damaged at random (bytes replaced by JSON's structural characters, removed, or added) read the
/// same however the text comes: whole, or a few bytes a read so that every token is cut somewhere. Each ends as
/// the same manifest or the same `.manifest` error, word for word.
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

    @Test func damagedManifestsReadTheSameInAnyChunks() throws {
        var random = SeededRandom(seed: 0x6d616e69)
        let base = try ManifestReaderTests.manifest(40).encodedJSON()
        var intact = 0
        for _ in 0..<600 {
            let bytes = Self.mutated(base, &random)
            let outcomes = [nil, 1, 7, 301].map { (trickle) in
                Result { () throws(AssetPackError) -> BundleManifest in try ManifestReaderTests.read(bytes, trickle: trickle) }
            }
            for outcome in outcomes.dropFirst() {
                switch (outcomes[0], outcome) {
                case (.success(let one), .success(let two)): #expect(one == two)
                case (.failure(let one), .failure(let two)):
                    #expect(one.code == .manifest && one.message == two.message, "\(one.message) / \(two.message)")
                default: Issue.record("\(outcomes[0]) / \(outcome): \(String(decoding: bytes, as: UTF8.self))")
                }
            }
            if case .success = outcomes[0] { intact += 1 }
        }
        #expect(intact > 10)  // damage in white space or inside a string can leave the manifest intact
    }
}
