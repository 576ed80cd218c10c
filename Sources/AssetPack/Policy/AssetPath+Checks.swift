extension AssetPath {
    /// Validates `text` ("a/b/c.txt"; one trailing `/` is allowed for directories). A text without that
    /// `/` is kept as it is, sharing its storage.
    /// - Throws: ``AssetPackError`` with code `.unsafePath` saying which rule the name broke.
    /// - Complexity: O(*n*) in the UTF-8 length of `text`, with no allocation unless `text` ends in `/`.
    public init(_ text: String) throws(AssetPackError) {
        // Work on UTF-8 bytes, not Characters: "/" followed by a combining mark is one Character, so a
        // Character-wise split or prefix test would let "../\u{301}x" or "/\u{301}etc" through.
        let verdict = AssetPath(validated: text).withUTF8 { AssetPath.verdict(on: $0) }
        switch verdict {
        case .root:
            self = .root
        case .valid(let trailingSlash):
            self.init(validated: trailingSlash ? String(text.utf8.dropLast())! : text)
        case .refused(let reason):
            throw AssetPackError(.unsafePath, "unsafe name \(AssetPath.quoted(text)): \(reason)")
        }
    }

    /// Why `text` cannot be a path (the reason ``init(_:)`` refuses it with: `absolute path`, `'..' component`,
    /// …), or nil when it can (`""` is the root).
    public static func problem(withPath text: String) -> String? {
        guard case .refused(let reason) = AssetPath(validated: text).withUTF8({ AssetPath.verdict(on: $0) }) else { return nil }
        return reason
    }

    /// Why `name` cannot be one path component, or nil when it can.
    public static func problem(with name: String) -> String? {
        AssetPath(validated: name).withUTF8 { componentProblem($0) }
    }

    /// What ``init(_:)`` makes of a text's bytes.
    private enum Verdict {
        case root
        case valid(trailingSlash: Bool)
        case refused(String)
    }

    /// Checks a whole path's bytes. The refusals come in the order they always did: an absolute start,
    /// the length, the depth, then the first component with a problem.
    private static func verdict(on text: UnsafeBufferPointer<UInt8>) -> Verdict {
        if text.first == slash { return .refused("absolute path") }
        let trailingSlash = text.last == slash
        let body = UnsafeBufferPointer(rebasing: text[..<(text.count - (trailingSlash ? 1 : 0))])
        if body.isEmpty { return .root }
        if body.count > maxPathBytes { return .refused("longer than \(maxPathBytes) bytes") }
        var depth = 0, start = 0
        var first: String?
        while start <= body.count {
            var end = start
            while end < body.count && body[end] != slash { end += 1 }
            depth += 1
            if first == nil { first = componentProblem(UnsafeBufferPointer(rebasing: body[start..<end])) }
            start = end + 1
        }
        if depth > maxDepth { return .refused("nested deeper than \(maxDepth) levels") }
        if let first { return .refused(first) }
        return .valid(trailingSlash: trailingSlash)
    }

    /// Why the UTF-8 bytes `name` (of a valid string) cannot be one component, or nil when they can.
    /// Byte for byte what a walk over the name's Unicode scalars finds: every scalar the rules name is
    /// ASCII but the C1 controls, U+0080 to U+009F, which are the two bytes `C2 80` to `C2 9F`.
    private static func componentProblem(_ name: UnsafeBufferPointer<UInt8>) -> String? {
        if name.isEmpty { return "empty path component" }
        let dot = UInt8(ascii: ".")
        if name[0] == dot && (name.count == 1 || (name.count == 2 && name[1] == dot)) {
            return "'\(name.count == 1 ? "." : "..")' component"
        }
        if name.count > maxComponentBytes { return "component longer than \(maxComponentBytes) bytes" }
        for index in name.indices {
            switch name[index] {
            case 0: return "NUL byte"
            case 0x01...0x1F, 0x7F: return "control character"
            case 0xC2 where index + 1 < name.count && (0x80...0x9F).contains(name[index + 1]): return "control character"
            case 0x5C: return "backslash"
            case 0x2F: return "slash in a component"
            default: continue
            }
        }
        if name.count >= 2 && name[1] == UInt8(ascii: ":") && isASCIILetter(name[0]) { return "drive letter" }
        return nil
    }

    private static func isASCIILetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
    }

    /// A name in quotes with control characters escaped, safe to print.
    static func quoted(_ text: String) -> String {
        "\"" + printable(text) + "\""
    }

    /// `text` with its control characters (C0, DEL and C1: escape sequences, carriage returns, line feeds)
    /// written as C and `ls -b` write them (`\t`, `\n`, `\r`, else `\x1b`), so that a name read from an archive
    /// or a manifest cannot move the cursor, clear the screen or fake a line of its own when printed to a terminal.
    package static func printable(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\t": out += "\\t"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case _ where isControl(scalar): out += "\\x" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }
}
