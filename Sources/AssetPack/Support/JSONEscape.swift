/// The escape sequences of JSON strings (RFC 8259, section 7), shared by the JSON readers
/// (`InstallRecordReader`, ``JSONBytes``).
enum JSONEscape {
    /// The byte a one-character escape (`\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`) stands for; nil
    /// for `u` and for an escape JSON does not have.
    static func simple(_ kind: UInt8) -> UInt8? {
        switch kind {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): kind
        case UInt8(ascii: "b"): 0x08
        case UInt8(ascii: "f"): 0x0C
        case UInt8(ascii: "n"): 0x0A
        case UInt8(ascii: "r"): 0x0D
        case UInt8(ascii: "t"): 0x09
        default: nil
        }
    }

    /// The value of one hex digit of a `\u` escape.
    static func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    /// True when the code unit of a `\u` escape is the high half of a surrogate pair (its low half must follow).
    static func isHighSurrogate(_ unit: UInt32) -> Bool { (0xD800..<0xDC00).contains(unit) }

    /// Appends the UTF-8 of the scalar `\u` escapes name: `unit`, or with `low` the surrogate pair; false
    /// when they name no scalar (a lone or misordered surrogate).
    static func appendScalar(_ unit: UInt32, low: UInt32?, to bytes: inout [UInt8]) -> Bool {
        var value = unit
        if let low {
            guard isHighSurrogate(unit), (0xDC00..<0xE000).contains(low) else { return false }
            value = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
        }
        guard let scalar = Unicode.Scalar(value) else { return false }
        bytes.append(contentsOf: String(Character(scalar)).utf8)
        return true
    }
}
