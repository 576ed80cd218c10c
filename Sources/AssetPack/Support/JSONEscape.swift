/// The escape sequences of JSON strings (RFC 8259, section 7), shared by the JSON reader
/// (``JSONPullParser``) and writers (`InstallRecordJSON`, the command line's `--json` rows).
package enum JSONEscape {
    /// Appends `text` to `out` as a quoted JSON string, as `JSONEncoder` writes one: `"` and `\` escaped, the
    /// control characters `\b \f \n \r \t` as such and the others as `\u00XX`, everything else as its UTF-8.
    package static func appendQuoted(_ text: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { bytes in
            // The usual name: nothing to escape, copied at once.
            guard let base = bytes.baseAddress, firstSpecialByte(base, from: 0, to: bytes.count) < bytes.count else {
                return out.append(contentsOf: bytes)
            }
            for byte in bytes {
                let short: UInt8? = switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): byte
                case 0x08: UInt8(ascii: "b")
                case 0x0C: UInt8(ascii: "f")
                case 0x0A: UInt8(ascii: "n")
                case 0x0D: UInt8(ascii: "r")
                case 0x09: UInt8(ascii: "t")
                default: nil
                }
                if let short {
                    out.append(UInt8(ascii: "\\"))
                    out.append(short)
                } else if byte < 0x20 {
                    let hex: StaticString = "0123456789abcdef"
                    out.append(contentsOf: Array("\\u00".utf8))
                    out.append(hex.utf8Start[Int(byte >> 4)])
                    out.append(hex.utf8Start[Int(byte & 15)])
                } else {
                    out.append(byte)
                }
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// The offset of the first byte in `start..<end` of `base` that a JSON string cannot hold as it is:
    /// `"`, `\` or a control character (below 0x20); `end` when there is none. Eight bytes at a time: the
    /// plain runs of a manifest's or record's strings (names, paths, hashes) are most of their bytes.
    @inline(__always) static func firstSpecialByte(_ base: UnsafePointer<UInt8>, from start: Int, to end: Int) -> Int {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        var at = start
        while end - at >= 8 {
            let word = UnsafeRawPointer(base + at).loadUnaligned(as: UInt64.self)
            // Whether any byte is below 0x20, or is zero after an exclusive-or with `"` or `\` (exact as a
            // whole, though not byte by byte: the bytes of a word with one are looked at one by one below).
            let quote = word ^ (ones &* 0x22), backslash = word ^ (ones &* 0x5C)
            let below = (word &- ones &* 0x20) & ~word
            if (below | ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash)) & highs != 0 { break }
            at += 8
        }
        while at < end, base[at] >= 0x20, base[at] != UInt8(ascii: "\""), base[at] != UInt8(ascii: "\\") { at += 1 }
        return at
    }

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
