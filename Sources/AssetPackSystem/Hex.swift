/// `bytes` as lowercase hex digits, two a byte: the one hex encoder of digests (manifests, key IDs). Written
/// into the string's own storage in one pass: installs call it for every chunk they check.
package func lowercaseHex(_ bytes: UnsafeRawBufferPointer) -> String {
    String(unsafeUninitializedCapacity: bytes.count * 2) { digits in
        for (index, byte) in bytes.enumerated() {
            digits[2 * index] = hexDigit(byte >> 4)
            digits[2 * index + 1] = hexDigit(byte & 0x0F)
        }
        return bytes.count * 2
    }
}

/// `bytes` as lowercase hex digits, two a byte (``lowercaseHex(_:)-(UnsafeRawBufferPointer)``).
package func lowercaseHex(_ bytes: some Sequence<UInt8>) -> String {
    let done = bytes.withContiguousStorageIfAvailable { lowercaseHex(UnsafeRawBufferPointer($0)) }
    return done ?? Array(bytes).withUnsafeBytes { lowercaseHex($0) }
}

/// The lowercase hex digit of a value under 16.
@inline(__always) private func hexDigit(_ value: UInt8) -> UInt8 {
    value < 10 ? UInt8(ascii: "0") &+ value : UInt8(ascii: "a") &+ (value &- 10)
}
