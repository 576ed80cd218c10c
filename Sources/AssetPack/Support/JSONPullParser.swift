/// The one JSON tokenizer (RFC 8259) of the package: a pull parser over text that comes a chunk at a time
/// (a file, a stream) or is in memory, used by the manifest reader (``ManifestReader``) and the install record's
/// (`InstallRecordReader`). The caller walks the value it expects — ``enterObject()`` then ``nextMember()``
/// until nil, ``enterArray()`` then ``nextElement()`` until false, ``string()``, ``unsigned(max:)``,
/// ``takeNull()`` — and steps over what it does not know with ``skipValue()``, which checks its syntax too.
///
/// Strict: strings must be valid UTF-8 without raw control characters (escapes decoded, `\u` surrogate pairs
/// joined, a lone surrogate refused), numbers must follow the grammar, nesting is at most ``maxDepth`` deep, a
/// string at most ``maxStringBytes`` long, the text at most `limit` bytes, and ``finish()`` refuses anything but
/// white space after the value. Memory is one chunk and one string. Every refusal is one ``AssetPackError``
/// of the code given at creation, naming the byte offset and the reason.
final class JSONPullParser {
    /// The deepest nesting of arrays and objects taken.
    static let maxDepth = 64
    /// The longest string taken, in bytes once its escapes are decoded.
    static let maxStringBytes = 1 << 20

    /// Fills a buffer from the source, returning how many bytes it wrote (0 at the end).
    typealias Source = (UnsafeMutableRawBufferPointer) throws(AssetPackError) -> Int

    private let source: Source?
    private let buffer: UnsafeMutableRawBufferPointer
    /// The next byte to read, and the end of the bytes in ``buffer``.
    private var position = 0, end = 0
    /// Bytes of the text before ``buffer``'s first, and read from the source in all.
    private var consumed = 0, total = 0
    private let limit: Int
    /// The error code and path a refusal carries.
    private let code: AssetPackError.Code
    private let origin: String
    /// Containers open, and whether the last one was opened just now (its first item comes without a comma).
    private var depth = 0, opened = false
    /// A string's bytes when they are not in ``buffer`` as they are (escaped, or cut by the chunk's end).
    private var scratch: [UInt8] = []

    /// A parser of the text `source` gives, read `chunkSize` bytes at a time, at most `limit` bytes in all;
    /// a refusal is a `code` error naming `origin`.
    init(chunkSize: Int, limit: Int, code: AssetPackError.Code, origin: String, source: @escaping Source) {
        self.source = source
        buffer = .allocate(byteCount: max(chunkSize, 16), alignment: 8)
        (self.limit, self.code, self.origin) = (limit, code, origin)
    }

    /// A parser of the text `bytes` (copied once).
    init(bytes: [UInt8], code: AssetPackError.Code, origin: String) {
        source = nil
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 16), alignment: 8)
        bytes.withUnsafeBytes { buffer.copyMemory(from: $0) }
        self.buffer = buffer
        (end, total, limit, self.code, self.origin) = (bytes.count, bytes.count, bytes.count, code, origin)
    }

    deinit { buffer.deallocate() }

    /// The offset in the text of the next byte to read.
    var offset: Int { consumed + position }

    /// A refusal of the text at the next byte: `reason`, with its offset.
    func refusal(_ reason: String) -> AssetPackError {
        AssetPackError(code, "\(reason) at byte \(offset)", path: origin)
    }

    // MARK: - Containers

    /// Steps into the object that comes next.
    func enterObject() throws(AssetPackError) { try enter(UInt8(ascii: "{"), "an object") }

    /// Steps into the array that comes next.
    func enterArray() throws(AssetPackError) { try enter(UInt8(ascii: "["), "an array") }

    private func enter(_ open: UInt8, _ what: String) throws(AssetPackError) {
        guard try nextByte() == open else { throw refusal("\(what) is expected") }
        guard depth < Self.maxDepth else { throw refusal("nested more than \(Self.maxDepth) deep") }
        position += 1
        depth += 1
        opened = true
    }

    /// The name of the current object's next member, its `:` taken (the value is next); nil once the object
    /// closed. The name is a value of its own, valid after the buffer moves on.
    func nextMember() throws(AssetPackError) -> JSONName? {
        guard try nextItem(close: UInt8(ascii: "}")) else { return nil }
        let name = try name()
        guard try nextByte() == UInt8(ascii: ":") else { throw refusal("':' is expected after a member name") }
        position += 1
        return name
    }

    /// The string that comes next as a ``JSONName``: a member name, or a value that is one of a few words.
    func name() throws(AssetPackError) -> JSONName {
        guard try nextByte() == UInt8(ascii: "\"") else { throw refusal("a string is expected") }
        // Most names: plain ASCII, closed within the buffer, at most 16 bytes.
        let base = buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)
        var at = position + 1
        let limit = min(end, at + 17)
        while at < limit, case let byte = base[at], byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\"), byte &- 0x20 < 0x60 { at += 1 }
        if at < limit, base[at] == UInt8(ascii: "\"") {
            defer { position = at + 1 }
            return JSONName(UnsafeRawBufferPointer(start: base + position + 1, count: at - position - 1))
        }
        return try withStringBytes { (bytes) throws(AssetPackError) in
            guard Self.isValidUTF8(bytes) else { throw refusal("a string is not valid UTF-8") }
            return JSONName(bytes)
        }
    }

    /// True when the current array has one more element (next to read); false once it closed.
    func nextElement() throws(AssetPackError) -> Bool {
        try nextItem(close: UInt8(ascii: "]"))
    }

    /// Takes the `,` before an item, or the container's end (`close`), then false.
    private func nextItem(close: UInt8) throws(AssetPackError) -> Bool {
        guard let byte = try nextByte() else { throw refusal("the text ends inside \(close == UInt8(ascii: "]") ? "an array" : "an object")") }
        if byte == close {
            position += 1
            depth -= 1
            opened = false
            return false
        }
        if opened {
            opened = false
            return true
        }
        guard byte == UInt8(ascii: ",") else { throw refusal("',' or '\(Character(Unicode.Scalar(close)))' is expected") }
        position += 1
        if try nextByte() == close { throw refusal("a value is expected after ','") }
        return true
    }

    // MARK: - Values

    /// The string that comes next, its escapes decoded.
    func string() throws(AssetPackError) -> String {
        try string(reusing: nil)
    }

    /// The string that comes next; `previous` itself when the text spells exactly its bytes (consecutive
    /// entries name one archive: no new copy of it for each).
    func string(reusing previous: String?) throws(AssetPackError) -> String {
        guard try nextByte() == UInt8(ascii: "\"") else { throw refusal("a string is expected") }
        let start = offset
        return try withStringBytes { (bytes) throws(AssetPackError) -> String in
            if var previous, previous.utf8.count == bytes.count, previous.withUTF8({ UnsafeRawBufferPointer($0).elementsEqual(bytes) }) {
                return previous
            }
            guard Self.isValidUTF8(bytes) else { throw AssetPackError(code, "a string is not valid UTF-8 at byte \(start)", path: origin) }
            return String(decoding: bytes.assumingMemoryBound(to: UInt8.self), as: UTF8.self)
        }
    }

    /// The unsigned integer that comes next, in decimal without sign, fraction or exponent, at most `max`.
    func unsigned(max: UInt64) throws(AssetPackError) -> UInt64 {
        guard let first = try nextByte(), first &- UInt8(ascii: "0") < 10 else { throw refusal("an unsigned integer is expected") }
        let start = offset
        var value: UInt64 = 0
        while try hasByte() {
            let digit = buffer[position] &- UInt8(ascii: "0")
            guard digit < 10 else { break }
            if value == 0 && offset > start { throw refusal("a number has a leading zero") }
            let (times, overflow) = value.multipliedReportingOverflow(by: 10)
            let (sum, carry) = times.addingReportingOverflow(UInt64(digit))
            guard !overflow, !carry, sum <= max else {
                throw AssetPackError(code, "a number larger than \(max) at byte \(start)", path: origin)
            }
            value = sum
            position += 1
        }
        if let next = try peek(), next == UInt8(ascii: ".") || next | 0x20 == UInt8(ascii: "e") {
            throw refusal("an integer is expected, not a fraction or an exponent")
        }
        return value
    }

    /// Takes `null` when it comes next, then true; false (nothing taken) for any other value.
    func takeNull() throws(AssetPackError) -> Bool {
        guard try nextByte() == UInt8(ascii: "n") else { return false }
        try literal("null")
        return true
    }

    /// Steps over the value that comes next, whatever it is, checking its syntax.
    func skipValue() throws(AssetPackError) {
        guard let byte = try nextByte() else { throw refusal("a value is expected") }
        switch byte {
        case UInt8(ascii: "{"):
            try enterObject()
            while try nextMember() != nil { try skipValue() }
        case UInt8(ascii: "["):
            try enterArray()
            while try nextElement() { try skipValue() }
        case UInt8(ascii: "\""):
            try withStringBytes { (bytes) throws(AssetPackError) in
                guard Self.isValidUTF8(bytes) else { throw refusal("a string is not valid UTF-8") }
            }
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        default: try skipNumber()
        }
    }

    /// Checks that only white space follows the value read.
    func finish() throws(AssetPackError) {
        if try nextByte() != nil { throw refusal("text follows the value") }
    }

    // MARK: - Bytes

    /// The next byte that is not white space, not taken (white space before it is); nil at the end.
    @inline(__always) private func nextByte() throws(AssetPackError) -> UInt8? {
        while try hasByte() {
            let byte = buffer[position]
            guard byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 else { return byte }
            position += 1
        }
        return nil
    }

    /// The next byte, not taken; nil at the end.
    private func peek() throws(AssetPackError) -> UInt8? {
        try hasByte() ? buffer[position] : nil
    }

    /// True when a byte is there to read, the next chunk read for it once the buffer is used up.
    @inline(__always) private func hasByte() throws(AssetPackError) -> Bool {
        position < end ? true : try refill()
    }

    /// Reads the next chunk once the buffer is used up; false at the end of the text.
    private func refill() throws(AssetPackError) -> Bool {
        guard let source else { return false }
        consumed += end
        (position, end) = (0, 0)
        let count = try source(buffer)
        guard count > 0 else { return false }
        total += count
        guard total <= limit else { throw AssetPackError(.limitExceeded, "the text is larger than \(limit) bytes", path: origin) }
        end = count
        return true
    }

    /// Takes `word` (`true`, `false`, `null`).
    private func literal(_ word: StaticString) throws(AssetPackError) {
        for index in 0..<word.utf8CodeUnitCount {
            guard try peek() == word.utf8Start[index] else { throw refusal("\(word) is misspelt") }
            position += 1
        }
    }

    /// Steps over a number of any size: `-`, digits without a leading zero, a fraction, an exponent.
    private func skipNumber() throws(AssetPackError) {
        if try peek() == UInt8(ascii: "-") { position += 1 }
        guard let first = try peek(), first &- UInt8(ascii: "0") < 10 else { throw refusal("a value is expected") }
        position += 1
        if first != UInt8(ascii: "0") { try skipDigits(atLeastOne: false) }
        if try peek() == UInt8(ascii: ".") {
            position += 1
            try skipDigits(atLeastOne: true)
        }
        if let byte = try peek(), byte | 0x20 == UInt8(ascii: "e") {
            position += 1
            if let sign = try peek(), sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { position += 1 }
            try skipDigits(atLeastOne: true)
        }
    }

    private func skipDigits(atLeastOne: Bool) throws(AssetPackError) {
        var any = false
        while let byte = try peek(), byte &- UInt8(ascii: "0") < 10 {
            position += 1
            any = true
        }
        if atLeastOne && !any { throw refusal("a digit is expected in a number") }
    }

    /// `body` with the bytes of the string that starts here (at its `"`), escapes decoded: in place in the
    /// buffer when they are there as they are, else gathered in ``scratch``. Not UTF-8-checked.
    @inline(__always) private func withStringBytes<Result>(_ body: (UnsafeRawBufferPointer) throws(AssetPackError) -> Result) throws(AssetPackError) -> Result {
        position += 1
        let base = buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let start = position
        let stop = JSONEscape.firstSpecialByte(base, from: start, to: end)
        if stop < end, base[stop] == UInt8(ascii: "\"") {
            position = stop + 1
            return try body(UnsafeRawBufferPointer(start: base + start, count: stop - start))
        }
        scratch.removeAll(keepingCapacity: true)
        while true {
            let plain = JSONEscape.firstSpecialByte(base, from: position, to: end)
            scratch.append(contentsOf: UnsafeRawBufferPointer(start: base + position, count: plain - position))
            position = plain
            guard scratch.count <= Self.maxStringBytes else { throw refusal("a string is longer than \(Self.maxStringBytes) bytes") }
            if position == end {
                guard try refill() else { throw refusal("the text ends inside a string") }
                continue
            }
            let byte = base[position]
            position += 1
            if byte == UInt8(ascii: "\"") { break }
            guard byte == UInt8(ascii: "\\") else {
                position -= 1
                throw refusal("a control character is in a string")
            }
            try escape()
        }
        return try scratch.withBytesThrowingAssetPackError(body)
    }

    /// Decodes the escape after a `\` into ``scratch``.
    private func escape() throws(AssetPackError) {
        guard let kind = try peek() else { throw refusal("the text ends inside a string") }
        position += 1
        if let simple = JSONEscape.simple(kind) { return scratch.append(simple) }
        guard kind == UInt8(ascii: "u") else { throw refusal("\\\(Character(Unicode.Scalar(kind))) is no JSON escape") }
        let unit = try hex4()
        var low: UInt32?
        if JSONEscape.isHighSurrogate(unit) {
            guard try peek() == UInt8(ascii: "\\") else { throw refusal("a surrogate lacks its low half") }
            position += 1
            guard try peek() == UInt8(ascii: "u") else { throw refusal("a surrogate lacks its low half") }
            position += 1
            low = try hex4()
        }
        guard JSONEscape.appendScalar(unit, low: low, to: &scratch) else { throw refusal("a \\u escape names no character") }
    }

    private func hex4() throws(AssetPackError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = try peek(), let digit = JSONEscape.hexValue(byte) else { throw refusal("a \\u escape needs 4 hex digits") }
            position += 1
            value = value << 4 | digit
        }
        return value
    }

    /// True when `bytes` are valid UTF-8, checked without making a string (ASCII eight bytes at a time).
    private static func isValidUTF8(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var at = 0
        while bytes.count - at >= 8, bytes.loadUnaligned(fromByteOffset: at, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 { at += 8 }
        while at < bytes.count, bytes[at] < 0x80 { at += 1 }
        guard at < bytes.count else { return true }
        var iterator = UnsafeRawBufferPointer(rebasing: bytes[at...]).makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue: continue
            case .emptyInput: return true
            case .error: return false
            }
        }
    }
}

/// A member name read by ``JSONPullParser/nextMember()``, matched against the names a reader knows
/// (`case "path":`) without making a `String`. Names longer than 16 bytes match none (no reader knows one).
struct JSONName {
    private var bytes: (UInt64, UInt64) = (0, 0)
    private let count: Int

    init(_ text: UnsafeRawBufferPointer) {
        count = text.count
        guard count <= 16 else { return }
        withUnsafeMutableBytes(of: &bytes) { $0.copyMemory(from: text) }
    }

    /// True when `name` is `pattern`, byte for byte.
    static func ~= (pattern: StaticString, name: JSONName) -> Bool {
        let count = pattern.utf8CodeUnitCount
        guard count == name.count, count <= 16 else { return false }
        return withUnsafeBytes(of: name.bytes) { (bytes) in
            for index in 0..<count where bytes[index] != pattern.utf8Start[index] { return false }
            return true
        }
    }
}
