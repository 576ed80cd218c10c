import AssetPack
import Testing
@testable import AssetPackPacker

@Suite("Packing rules and sizes")
struct PackingRulesTests {
    @Test(arguments: [
        ("0", 0), ("1048576", 1_048_576), ("512K", 524_288), ("512k", 524_288), ("4M", 4_194_304),
        ("4MiB", 4_194_304), ("4MB", 4_194_304), ("1G", 1_073_741_824), ("100B", 100),
    ] as [(String, UInt64)])
    func parsesSizes(text: String, bytes: UInt64) {
        #expect(ByteSize.parse(text) == bytes)
    }

    @Test(arguments: ["", "K", "-1", "1.5M", "12Q", "١٢", "99999999999999999999", "20000000000T"])
    func rejectsNonSizes(text: String) {
        #expect(ByteSize.parse(text) == nil)
    }

    @Test func formatsSizes() {
        #expect(ByteSize.format(812) == "812 B")
        #expect(ByteSize.format(1536) == "1.5 KiB")
        #expect(ByteSize.format(4 << 20) == "4.0 MiB")
    }

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
    }

    @Test func fingerprintNamesLevelAndRules() {
        #expect(PackingRules().fingerprint
                == "deflate 6; store when 4x65536-byte sample saves < 5% or whole file saves < 2%; independent blocks of 4194304 bytes")
        var smallBlocks = PackingRules()
        smallBlocks.blockSize = 1 << 20
        #expect(smallBlocks.fingerprint != PackingRules().fingerprint)
        #expect(PackingRules(level: 9).fingerprint != PackingRules().fingerprint)
        #expect(PackingRules(threshold: 0).fingerprint == PackingRules().fingerprint)
    }
}
