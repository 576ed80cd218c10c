/// One JSON object written as text member by member, as `JSONEncoder` with sorted keys and unescaped slashes
/// writes it, for the rows that `list --json` prints by the million (the encoder costs several microseconds a
/// row; this, a fraction of one). The caller adds the members in sorted order of their keys.
struct JSONObjectText {
    /// The text so far: `{` and the members added.
    private(set) var text = "{"

    /// Adds `"key":"value"`, the value escaped as JSON requires.
    mutating func add(_ key: StaticString, _ value: String) {
        member(key)
        text += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case "\u{08}": text += "\\b"
            case "\u{0C}": text += "\\f"
            case "\u{00}"..."\u{1F}":
                let hex = String(scalar.value, radix: 16)
                text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }

    /// Adds `"key":value` for a whole number.
    mutating func add<Number: BinaryInteger>(_ key: StaticString, _ value: Number) {
        member(key)
        text += String(value)
    }

    /// Adds `"key":true` or `"key":false`.
    mutating func add(_ key: StaticString, _ value: Bool) {
        member(key)
        text += value ? "true" : "false"
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
    var closed: String { text + "}" }

    private mutating func member(_ key: StaticString) {
        if text.utf8.count > 1 { text += "," }
        text += "\"" + key.description + "\":"
    }
}
