/// A SHA-256 held as its 32 bytes. A plan keeps one for every file of a bundle with hashes; as 64 hex
/// digits in a `String` each would take another heap object of about 100 bytes (100 MB for a million files).
package struct SHA256Digest: Sendable, Hashable {
    /// The bytes, eight to a word, in order (each word big-endian: its first byte is the most significant).
    private let words: (UInt64, UInt64, UInt64, UInt64)

    /// The digest written as 64 lowercase hex digits, as manifests write them (``ContentDigest/isHex(_:)``);
    /// nil for any other text.
    package init?(hex: String) {
        var hex = hex
        guard let words = hex.withUTF8({ Self.words(ofHex: $0) }) else { return nil }
        self.words = words
    }

    private static func words(ofHex utf8: UnsafeBufferPointer<UInt8>) -> (UInt64, UInt64, UInt64, UInt64)? {
        guard utf8.count == 64 else { return nil }
        var words: [UInt64] = [0, 0, 0, 0]
        for index in 0..<64 {
            let byte = utf8[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte &- UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte &- UInt8(ascii: "a") &+ 10
            default: return nil
            }
            words[index / 16] = words[index / 16] << 4 | UInt64(digit)
        }
        return (words[0], words[1], words[2], words[3])
    }

    /// The 64 lowercase hex digits.
    package var hex: String {
        String(unsafeUninitializedCapacity: 64) { buffer in
            writeHex(into: buffer.baseAddress!)
            return 64
        }
    }

    /// Appends the 64 lowercase hex digits to `bytes`.
    package func appendHex(to bytes: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { digits in
            writeHex(into: digits.baseAddress!)
            bytes.append(contentsOf: digits)
        }
    }

    private func writeHex(into out: UnsafeMutablePointer<UInt8>) {
        let all = [words.0, words.1, words.2, words.3]
        for index in 0..<64 {
            let digit = UInt8(truncatingIfNeeded: all[index / 16] >> (4 * UInt64(15 - index % 16))) & 0x0F
            out[index] = digit < 10 ? UInt8(ascii: "0") &+ digit : UInt8(ascii: "a") &+ digit &- 10
        }
    }

    package static func == (left: SHA256Digest, right: SHA256Digest) -> Bool {
        left.words.0 == right.words.0 && left.words.1 == right.words.1 && left.words.2 == right.words.2 && left.words.3 == right.words.3
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(words.0)
        hasher.combine(words.1)
        hasher.combine(words.2)
        hasher.combine(words.3)
    }
}
