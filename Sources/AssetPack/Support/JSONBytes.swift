import Foundation

/// A JSON text (RFC 8259) in memory, read in place by ``JSONBytesDecoder``: values are found by byte
/// offset and parsed only when a `Decodable` type asks for them. Every read is bounds-checked, nesting is
/// limited to ``maxDepth``, strings must be valid UTF-8 without raw control characters, and the text must
/// be exactly one value (white space around it allowed). It borrows the bytes (no copy of a manifest of
/// megabytes): valid only while the buffer it was made from is.
struct JSONBytes {
    /// The deepest nesting of arrays and objects accepted.
    static let maxDepth = 256

    private let storage: UnsafeRawBufferPointer
    /// The text.
    var bytes: UnsafeRawBufferPointer { storage }

    /// The text in `text`, borrowed.
    init(borrowing text: UnsafeRawBufferPointer) {
        storage = text
        count = text.count
    }

    /// Bytes of the text.
    let count: Int

    /// The byte at `offset`, or nil past the end.
    @inline(__always) func byte(at offset: Int) -> UInt8? {
        offset >= 0 && offset < count ? storage[offset] : nil
    }

    /// The offset of the first byte at or after `offset` that is not JSON white space.
    func skipSpace(_ offset: Int) -> Int {
        var at = offset
        while let byte = byte(at: at), byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { at += 1 }
        return at
    }

    /// Checks the whole text is one value; returns where it starts.
    func root() throws(JSONSyntaxError) -> Int {
        let start = skipSpace(0)
        let end = skipSpace(try skipValue(start, depth: 0))
        guard end == count else { throw JSONSyntaxError(offset: end, "text after the value") }
        return start
    }

    /// Where the value starting at `offset` ends, checking its syntax.
    func skipValue(_ offset: Int, depth: Int) throws(JSONSyntaxError) -> Int {
        guard let first = byte(at: offset) else { throw JSONSyntaxError(offset: offset, "a value is missing") }
        switch first {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            guard depth < Self.maxDepth else { throw JSONSyntaxError(offset: offset, "nested more than \(Self.maxDepth) deep") }
            return try forEachElement(offset, object: first == UInt8(ascii: "{")) { (_, value) throws(JSONSyntaxError) in
                try skipValue(value, depth: depth + 1)
            }
        case UInt8(ascii: "\""):
            return try stringEnd(offset).end
        case UInt8(ascii: "t"): return try literal("true", at: offset)
        case UInt8(ascii: "f"): return try literal("false", at: offset)
        case UInt8(ascii: "n"): return try literal("null", at: offset)
        default: return try numberEnd(offset)
        }
    }

    /// Where the value at `offset` ends, in a text ``root()`` already checked: brackets are matched and
    /// strings stepped over without checking anything again.
    func skipChecked(_ offset: Int) -> Int {
        var at = offset
        var depth = 0
        let base = storage.baseAddress!.assumingMemoryBound(to: UInt8.self)  // count > 0: root() checked it
        repeat {
            guard at < count else { return count }
            switch base[at] {
            case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1; at += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1; at += 1
            case UInt8(ascii: "\""):
                at += 1
                while at < count && base[at] != UInt8(ascii: "\"") { at += base[at] == UInt8(ascii: "\\") ? 2 : 1 }
                at += 1
            case UInt8(ascii: ","), UInt8(ascii: ":"), 0x20, 0x0A, 0x0D, 0x09:
                if depth == 0 { return at }
                at += 1
            default: at += 1
            }
        } while depth > 0 || (at < count && !Self.endsScalar(base[at]))
        return at
    }

    /// True for the bytes that end a number or literal.
    private static func endsScalar(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: ",") || byte == UInt8(ascii: "]") || byte == UInt8(ascii: "}") || byte == 0x20 || byte == 0x0A
            || byte == 0x0D || byte == 0x09 || byte == UInt8(ascii: ":")
    }

    /// True when the bytes `start..<end` of the text are the UTF-8 of `name`.
    func equals(_ start: Int, _ end: Int, _ name: String) -> Bool {
        var name = name
        return name.withUTF8 { utf8 in
            utf8.count == end - start && (utf8.isEmpty || memcmp(utf8.baseAddress!, storage.baseAddress! + start, utf8.count) == 0)
        }
    }

    /// Calls `body` with (key offset or -1, value offset) of each member of the object (or element of the
    /// array) at `offset`; `body` returns where the value ends. Returns where the container ends.
    @discardableResult
    func forEachElement(_ offset: Int, object: Bool,
                        _ body: (Int, Int) throws(JSONSyntaxError) -> Int) throws(JSONSyntaxError) -> Int {
        let close = object ? UInt8(ascii: "}") : UInt8(ascii: "]")
        var at = skipSpace(offset + 1)
        if byte(at: at) == close { return at + 1 }
        while true {
            var key = -1
            if object {
                guard byte(at: at) == UInt8(ascii: "\"") else { throw JSONSyntaxError(offset: at, "a member name is missing") }
                key = at
                at = skipSpace(try stringEnd(at).end)
                guard byte(at: at) == UInt8(ascii: ":") else { throw JSONSyntaxError(offset: at, "\":\" is missing") }
                at = skipSpace(at + 1)
            }
            at = skipSpace(try body(key, at))
            switch byte(at: at) {
            case UInt8(ascii: ","): at = skipSpace(at + 1)
            case close: return at + 1
            default: throw JSONSyntaxError(offset: at, "\",\" or \"\(Character(UnicodeScalar(close)))\" is missing")
            }
        }
    }

    /// Where the string starting at `offset` (its opening quote) ends, and whether it holds escapes.
    func stringEnd(_ offset: Int) throws(JSONSyntaxError) -> (end: Int, escaped: Bool) {
        var at = offset + 1
        var escaped = false
        if let base = storage.baseAddress?.assumingMemoryBound(to: UInt8.self), at < count {
            // The usual run of plain characters, stepped over eight bytes at a time.
            at = JSONEscape.firstSpecialByte(base, from: at, to: count)
        }
        while let current = byte(at: at) {
            switch current {
            case UInt8(ascii: "\""): return (at + 1, escaped)
            case UInt8(ascii: "\\"):
                escaped = true
                at += byte(at: at + 1) == UInt8(ascii: "u") ? 6 : 2
            case 0..<0x20: throw JSONSyntaxError(offset: at, "a control character in a string")
            default: at += 1
            }
        }
        throw JSONSyntaxError(offset: offset, "a string is not closed")
    }

    /// The string starting at `offset` (its opening quote), escapes resolved.
    func string(at offset: Int) throws(JSONSyntaxError) -> String {
        try stringAndEnd(at: offset).value
    }

    /// The string starting at `offset` (its opening quote), escapes resolved, and where it ends.
    func stringAndEnd(at offset: Int) throws(JSONSyntaxError) -> (value: String, end: Int) {
        guard byte(at: offset) == UInt8(ascii: "\"") else { throw JSONSyntaxError(offset: offset, "a string is expected") }
        let (end, escaped) = try stringEnd(offset)
        let raw = UnsafeRawBufferPointer(rebasing: bytes[(offset + 1)..<(end - 1)])
        // Unescaped, the string is made straight from the text: no byte array first.
        let validated = escaped ? String(validating: try unescaped(raw, at: offset), as: UTF8.self) : String(validating: raw, as: UTF8.self)
        guard let text = validated else {
            throw JSONSyntaxError(offset: offset, "a string is not valid UTF-8")
        }
        return (text, end)
    }

    /// The integer at `offset` (digits, an optional minus sign; no fraction or exponent).
    func integer<Value: FixedWidthInteger>(at offset: Int, as type: Value.Type) throws(JSONSyntaxError) -> Value {
        try integerAndEnd(at: offset, as: type).value
    }

    /// The integer at `offset`, as ``integer(at:as:)`` reads it, and where it ends.
    func integerAndEnd<Value: FixedWidthInteger>(at offset: Int, as type: Value.Type) throws(JSONSyntaxError) -> (value: Value, end: Int) {
        let end = try numberEnd(offset)
        var at = offset
        let negative = byte(at: at) == UInt8(ascii: "-")
        if negative { at += 1 }
        var value: Value = 0
        while at < end {
            guard let byte = byte(at: at), (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else {
                throw JSONSyntaxError(offset: offset, "\(Value.self) expected, not a number with a fraction or exponent")
            }
            let digit = Value(byte - UInt8(ascii: "0"))
            let (times, overflow) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = negative ? times.subtractingReportingOverflow(digit) : times.addingReportingOverflow(digit)
            guard !overflow && !overflow2 else { throw JSONSyntaxError(offset: offset, "a number out of the range of \(Value.self)") }
            value = next
            at += 1
        }
        return (value, end)
    }

    /// The number at `offset` as a `Double`.
    func double(at offset: Int) throws(JSONSyntaxError) -> Double {
        let end = try numberEnd(offset)
        guard let value = Double(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[offset..<end]), as: UTF8.self)) else {
            throw JSONSyntaxError(offset: offset, "a number is expected")
        }
        return value
    }

    /// Where the number at `offset` ends (RFC 8259 number syntax).
    private func numberEnd(_ offset: Int) throws(JSONSyntaxError) -> Int {
        var at = offset
        func digits() -> Int {
            let start = at
            while let byte = byte(at: at), (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { at += 1 }
            return at - start
        }
        if byte(at: at) == UInt8(ascii: "-") { at += 1 }
        let leadingZero = byte(at: at) == UInt8(ascii: "0")
        let count = digits()
        guard count > 0, !leadingZero || count == 1 else { throw JSONSyntaxError(offset: offset, "a value is expected") }
        if byte(at: at) == UInt8(ascii: ".") {
            at += 1
            guard digits() > 0 else { throw JSONSyntaxError(offset: offset, "a fraction has no digits") }
        }
        if byte(at: at) == UInt8(ascii: "e") || byte(at: at) == UInt8(ascii: "E") {
            at += 1
            if byte(at: at) == UInt8(ascii: "+") || byte(at: at) == UInt8(ascii: "-") { at += 1 }
            guard digits() > 0 else { throw JSONSyntaxError(offset: offset, "an exponent has no digits") }
        }
        return at
    }

    /// Where the literal `word` (`true`, `false`, `null`) starting at `offset` ends; a syntax error when the
    /// text spells anything else there.
    func literal(_ word: StaticString, at offset: Int) throws(JSONSyntaxError) -> Int {
        let end = offset + word.utf8CodeUnitCount
        let expected = UnsafeRawBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        guard end <= count, expected.elementsEqual(UnsafeRawBufferPointer(rebasing: bytes[offset..<end])) else {
            throw JSONSyntaxError(offset: offset, "a value is expected")
        }
        return end
    }

    /// The bytes of a string's contents with its escapes resolved.
    private func unescaped(_ raw: UnsafeRawBufferPointer, at offset: Int) throws(JSONSyntaxError) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(raw.count)
        var index = 0
        while index < raw.count {
            let byte = raw[index]
            index += 1
            guard byte == UInt8(ascii: "\\") else { out.append(byte); continue }
            guard index < raw.count else { throw JSONSyntaxError(offset: offset, "an escape is cut short") }
            let kind = raw[index]
            index += 1
            if let simple = JSONEscape.simple(kind) { out.append(simple); continue }
            guard kind == UInt8(ascii: "u") else { throw JSONSyntaxError(offset: offset, "an unknown escape") }
            let unit = try hex4(raw, &index, offset)
            var low: UInt32?
            if JSONEscape.isHighSurrogate(unit), index + 1 < raw.count, raw[index] == UInt8(ascii: "\\"),
               raw[index + 1] == UInt8(ascii: "u") {
                index += 2
                low = try hex4(raw, &index, offset)
            }
            guard JSONEscape.appendScalar(unit, low: low, to: &out) else {
                throw JSONSyntaxError(offset: offset, "a lone surrogate")
            }
        }
        return out
    }

    private func hex4(_ raw: UnsafeRawBufferPointer, _ index: inout Int, _ offset: Int) throws(JSONSyntaxError) -> UInt32 {
        guard index + 4 <= raw.count else { throw JSONSyntaxError(offset: offset, "a \\u escape is cut short") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let digit = JSONEscape.hexValue(raw[index]) else {
                throw JSONSyntaxError(offset: offset, "a \\u escape has a non-hex digit")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }
}

/// A JSON text that breaks the syntax: what, and the byte offset where.
struct JSONSyntaxError: Error, CustomStringConvertible {
    let offset: Int
    let message: String

    init(offset: Int, _ message: String) {
        self.offset = offset
        self.message = message
    }

    var description: String { "\(message) at byte \(offset)" }
}
