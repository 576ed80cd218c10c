/// Hashes the one-line-per-entry texts of content identities (``ContentIdentity``, a walked tree's
/// identity) without a `String` per line: fields are appended as bytes to a buffer that is hashed 64 KiB
/// at a time. The bytes hashed are exactly those of the lines as text, so identities do not change.
struct IdentityLines {
    private var hash = SHA256()
    private var buffer: [UInt8] = []
    private static let flushSize = 64 << 10

    /// Starts with the `header` line (its text, newline included).
    init(header: String) {
        buffer.reserveCapacity(Self.flushSize + 4096)
        text(header)
    }

    /// Appends the UTF-8 bytes of `value`.
    mutating func text(_ value: String) {
        var value = value
        value.withUTF8 { buffer.append(contentsOf: $0) }
    }

    /// Appends `value` in `radix` (lowercase digits), as `String(value, radix:)` writes it.
    mutating func number<Value: UnsignedInteger>(_ value: Value, radix: Value = 10) {
        number(UInt64(value), radix: UInt64(radix))
    }

    /// ``number(_:radix:)`` for the one width it is written in: digits are made back to front in a
    /// small stack buffer and appended at once.
    private mutating func number(_ value: UInt64, radix: UInt64) {
        if value == 0 { return buffer.append(UInt8(ascii: "0")) }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { digits in
            var start = 64
            var rest = value
            while rest > 0 {
                let digit = UInt8(truncatingIfNeeded: rest % radix)
                start -= 1
                digits[start] = digit < 10 ? UInt8(ascii: "0") &+ digit : UInt8(ascii: "a") &+ digit &- 10
                rest /= radix
            }
            buffer.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start..<64]))
        }
    }

    /// Appends a tab.
    mutating func tab() { buffer.append(0x09) }

    /// Ends the line; hashes the buffer once it is full.
    mutating func endLine() {
        buffer.append(0x0A)
        if buffer.count >= Self.flushSize {
            hash.update(buffer)
            buffer.removeAll(keepingCapacity: true)
        }
    }

    /// The identity: 64 lowercase hex digits.
    mutating func finalizeHex() -> String {
        hash.update(buffer)
        buffer = []
        return hash.finalizeHex()
    }
}
