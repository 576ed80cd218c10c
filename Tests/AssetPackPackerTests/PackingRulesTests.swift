import AssetPack
import Testing
@testable import AssetPackPacker

/// Packing rules: which files are packed, and how.
@Suite struct PackingRulesTests {
    @Test func thresholdAndZipRule() throws {
        let rules = PackingRules()
        let path = try AssetPath("a/big.bin")
        #expect(!rules.packs(path, size: 1_048_576))
        #expect(rules.packs(path, size: 1_048_577))
        #expect(!rules.packs(try AssetPath("a/real.zip"), size: 10_000_000))
        #expect(!rules.packs(try AssetPath("a/REAL.ZIP"), size: 10_000_000))
        #expect(PackingRules(threshold: 0).packs(path, size: 0))
        #expect(rules.packs(try AssetPath("a/.zip"), size: 10_000_000), "a file named just .zip is no zip archive")
    }

    @Test func levelIsChecked() {
        #expect(throws: AssetPackError.self) { try PackingRules(level: 10).validate() }
        #expect(throws: Never.self) { try PackingRules(level: 0).validate() }
        var rules = PackingRules()
        rules.packLevel = -1
        #expect(throws: AssetPackError.self) { try rules.validate() }
        rules.packLevel = 9
        #expect(throws: Never.self) { try rules.validate() }
    }

    @Test func fingerprintNamesLevelAndRules() {
        #expect(PackingRules().fingerprint
                == "deflate 6; store when 4x65536-byte sample saves < 5% or whole file saves < 2%; content-defined chunks gear/65536"
                + "; pack members stored")
        var deflatedPacks = PackingRules()
        deflatedPacks.packLevel = 6
        #expect(deflatedPacks.fingerprint.hasSuffix("; pack members deflate 6"))
        var smallChunks = PackingRules()
        smallChunks.chunking = ContentChunking(averageBits: 14)!
        #expect(smallChunks.fingerprint != PackingRules().fingerprint)
        #expect(PackingRules(level: 9).fingerprint != PackingRules().fingerprint)
        #expect(PackingRules(threshold: 0).fingerprint == PackingRules().fingerprint)
    }
}
