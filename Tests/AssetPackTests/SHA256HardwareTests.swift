import AssetPack
import Testing
import TestSupport

/// The SHA-256 block function in the CPU's SHA instructions (`CSHA256`) against the portable Swift one:
/// the same digests for every length around the block and padding boundaries, for pieces of any size, and
/// the FIPS 180-4 examples in both. On a CPU without the instructions both hashes are portable and the
/// comparisons hold trivially.
@Suite struct SHA256HardwareTests {
    private func digest(_ bytes: [UInt8], portable: Bool, piece: Int? = nil) -> String {
        var hash = SHA256(portable: portable)
        let size = piece ?? max(bytes.count, 1)
        for start in stride(from: 0, to: bytes.count, by: size) { hash.update(bytes[start..<min(start + size, bytes.count)]) }
        return hash.finalizeHex()
    }

    @Test func everyLengthUpTo1100GivesThePortableDigest() {
        var random = SeededRandom(seed: 512)
        let bytes = random.bytes(1100)
        for length in 0...1100 {
            let prefix = Array(bytes[0..<length])
            #expect(digest(prefix, portable: false) == digest(prefix, portable: true), "length \(length)")
        }
    }

    @Test func largeInputsInOddPiecesGiveThePortableDigest() {
        var random = SeededRandom(seed: 513)
        let bytes = random.bytes(300_000)
        let portable = digest(bytes, portable: true)
        for piece in [1, 63, 64, 65, 4095, 65_536, 300_000] {
            #expect(digest(bytes, portable: false, piece: piece) == portable, "pieces of \(piece)")
        }
    }

    @Test func fipsExamplesInBothBlockFunctions() {
        let examples: [(String, String)] = [
            ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
            ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
            ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
             "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
            ("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
             "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"),
        ]
        for (text, expected) in examples {
            #expect(digest(Array(text.utf8), portable: true) == expected)
            #expect(digest(Array(text.utf8), portable: false) == expected)
        }
        let million = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(digest(million, portable: false, piece: 1000) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func reportsWhetherTheCPUHasTheInstructions() {
        // Only informative: the suite passes either way, but a log shows which path ran.
        print("SHA256.hardwareAvailable = \(SHA256.hardwareAvailable)")
    }
}
