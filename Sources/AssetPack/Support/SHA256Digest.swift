/// A SHA-256 held as its 32 bytes. A plan keeps one for every file of a bundle with hashes; as 64 hex
/// digits in a `String` each would take another heap object of about 100 bytes (100 MB for a million files).
package struct SHA256Digest: Sendable, Hashable {
    /// The bytes, eight to a word, in order (each word big-endian: its first byte is the most significant).
    private let first, second, third, fourth: UInt64

    /// The digest whose bytes the words `first` to `fourth` hold, eight to a word, most significant first.
    package init(words first: UInt64, _ second: UInt64, _ third: UInt64, _ fourth: UInt64) {
        (self.first, self.second, self.third, self.fourth) = (first, second, third, fourth)
    }

    /// The digest written as 64 lowercase hex digits, as manifests write them (``ContentDigest/isHex(_:)``);
    /// nil for any other text.
    package init?(hex: String) {
        var hex = hex
        guard let words = hex.withUTF8({ Self.words(ofHex: $0) }) else { return nil }
        (first, second, third, fourth) = words
    }

    private static func words(ofHex utf8: UnsafeBufferPointer<UInt8>) -> (UInt64, UInt64, UInt64, UInt64)? {
        guard utf8.count == 64, let base = utf8.baseAddress, let first = word(base), let second = word(base + 16),
              let third = word(base + 32), let fourth = word(base + 48) else { return nil }
        return (first, second, third, fourth)
    }

    /// The 16 lowercase hex digits at `digits` as a word; nil when one is not such a digit.
    @inline(__always) private static func word(_ digits: UnsafePointer<UInt8>) -> UInt64? {
        var value: UInt64 = 0
        var invalid = false
        for index in 0..<16 {
            let byte = digits[index]
            let decimal = byte &- UInt8(ascii: "0"), letter = byte &- UInt8(ascii: "a")
            invalid = invalid || (decimal >= 10 && letter >= 6)
            value = value << 4 | UInt64(decimal < 10 ? decimal : letter &+ 10) & 0x0F
        }
        return invalid ? nil : value
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
        Self.writeHex(first, into: out)
        Self.writeHex(second, into: out + 16)
        Self.writeHex(third, into: out + 32)
        Self.writeHex(fourth, into: out + 48)
    }

    /// The 16 hex digits of `word`, most significant first.
    @inline(__always) private static func writeHex(_ word: UInt64, into out: UnsafeMutablePointer<UInt8>) {
        for index in 0..<16 {
            let digit = UInt8(truncatingIfNeeded: word >> UInt64(60 - 4 * index)) & 0x0F
            out[index] = digit < 10 ? UInt8(ascii: "0") &+ digit : UInt8(ascii: "a") &- 10 &+ digit
        }
    }
}
