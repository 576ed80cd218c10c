import AssetPack
import Testing
import TestSupport

/// SHA-256 against the FIPS 180-4 examples and against itself fed in pieces: every identity (manifests,
/// walked trees, archive fingerprints) depends on it, and a packer and an expander that agreed on a wrong
/// hash would never notice.
@Suite struct SHA256Tests {
    private func hex(_ pieces: [[UInt8]]) -> String {
        var hash = SHA256()
        for piece in pieces { hash.update(piece) }
        return hash.finalizeHex()
    }

    @Test func fipsExamples() {
        #expect(hex([]) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(hex([Array("abc".utf8)]) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(hex([Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)])
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(hex([[UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)])
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func piecesOfAnySizeGiveTheSameHash() {
        var random = SeededRandom(seed: 256)
        let bytes = random.bytes(10_000)
        let whole = hex([bytes])
        for size in [1, 3, 55, 56, 63, 64, 65, 127, 1000] {
            let pieces = stride(from: 0, to: bytes.count, by: size).map { Array(bytes[$0..<min($0 + size, bytes.count)]) }
            #expect(hex(pieces) == whole, "pieces of \(size)")
        }
        var text = SHA256()
        text.update("abc")
        #expect(text.finalizeHex() == hex([Array("abc".utf8)]))
    }
}
