import AssetPack

/// One JSON object written as UTF-8 member by member, as `JSONEncoder` with sorted keys and unescaped slashes
/// writes it, for the rows that `list --json` prints by the million. The caller adds members in key order.
struct JSONObjectText {
    /// The text so far: `{` and the members added.
    private(set) var bytes: [UInt8] = [UInt8(ascii: "{")]

    /// Adds `"key":"value"`, the value escaped as JSON requires (``JSONEscape/appendQuoted(_:to:)``).
    mutating func add(_ key: StaticString, _ value: String) {
        member(key)
        JSONEscape.appendQuoted(value, to: &bytes)
    }

    /// Adds `"key":value` for a whole number.
    mutating func add<Number: BinaryInteger>(_ key: StaticString, _ value: Number) {
        member(key)
        bytes.append(contentsOf: String(value).utf8)
    }

    /// Adds `"key":true` or `"key":false`.
    mutating func add(_ key: StaticString, _ value: Bool) {
        member(key)
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
    }

    /// Adds the member when `value` is not nil (as `encodeIfPresent` does).
    mutating func add(_ key: StaticString, _ value: String?) {
        if let value { add(key, value) }
    }

    /// Adds the member when `value` is not nil.
    mutating func add<Number: BinaryInteger>(_ key: StaticString, _ value: Number?) {
        if let value { add(key, value) }
    }

    /// The object, closed.
    var closed: [UInt8] { bytes + [UInt8(ascii: "}")] }

    /// `text` as a JSON string, quoted.
    static func quoted(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        JSONEscape.appendQuoted(text, to: &bytes)
        return bytes
    }

    private mutating func member(_ key: StaticString) {
        if bytes.count > 1 { bytes.append(UInt8(ascii: ",")) }
        bytes.append(UInt8(ascii: "\""))
        key.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
    }
}
