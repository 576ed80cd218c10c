/// `bytes` as lowercase hex digits, two a byte: the hex encoder of digests held as bytes (hashes of delivered
/// bytes, key IDs; a plan's `SHA256Digest` writes its own words). One pass into the string's storage: installs
/// call it for every chunk they check.
package func lowercaseHex(_ bytes: UnsafeRawBufferPointer) -> String {
    String(unsafeUninitializedCapacity: bytes.count * 2) { digits in
        for (index, byte) in bytes.enumerated() {
            digits[2 * index] = hexDigit(byte >> 4)
            digits[2 * index + 1] = hexDigit(byte & 0x0F)
        }
        return bytes.count * 2
    }
}

/// The lowercase hex digit of a value under 16.
@inline(__always) private func hexDigit(_ value: UInt8) -> UInt8 {
    value < 10 ? UInt8(ascii: "0") &+ value : UInt8(ascii: "a") &+ (value &- 10)
}
