import Testing
import TestSupport
@testable import AssetPack

/// ``JSONPullParser``, the one JSON tokenizer: values read the same whatever the chunks, escapes decoded,
/// limits held, every fault an error with its offset.
@Suite struct JSONPullParserTests {
    /// A parser of `text` that reads `step` bytes at a time.
    static func parser(_ text: [UInt8], step: Int) -> JSONPullParser {
        var position = 0
        return JSONPullParser(chunkSize: step, limit: 4 << 20, code: .manifest, origin: "t") { (buffer) throws(AssetPackError) in
            let count = min(buffer.count, text.count - position, step)
            for index in 0..<count { buffer[index] = text[position + index] }
            position += count
            return count
        }
    }

    /// The elements of the array `parser` reads, as text, each read as `kinds` says: `s` a string, `u` an
    /// unsigned integer, `n` a `null`, `k` a value skipped.
    static func tokens(_ parser: JSONPullParser, _ kinds: String) throws(AssetPackError) -> [String] {
        var tokens: [String] = []
        var kinds = kinds.makeIterator()
        try parser.enterArray()
        while try parser.nextElement() {
            switch kinds.next() {
            case "s": tokens.append("s:" + (try parser.string()))
            case "u": tokens.append("u:\(try parser.unsigned(max: .max))")
            case "n": tokens.append(try parser.takeNull() ? "null" : "not null")
            default:
                try parser.skipValue()
                tokens.append("skipped")
            }
        }
        try parser.finish()
        return tokens
    }

    @Test func valuesReadTheSameInChunksOfAnySize() throws {
        let text = Array(#" [ "caf\u00e9\/\ud83d\ude00\n\"", 18446744073709551615, 0, null, {"a": [1, -2.5E-3, true, false, {}]}, "" ] "#.utf8)
        let expected = ["s:caf\u{E9}/\u{1F600}\n\"", "u:18446744073709551615", "u:0", "null", "skipped", "s:"]
        for step in [1, 2, 3, 16, 1_000] {
            #expect(try Self.tokens(Self.parser(text, step: step), "suunks") == expected, "step \(step)")
        }
        #expect(try Self.tokens(JSONPullParser(bytes: text, code: .manifest, origin: "t"), "suunks") == expected)
    }

    /// Member names are matched byte for byte, escaped or not; a name longer than 16 bytes matches no short one.
    @Test func memberNamesMatchTheirSpelling() throws {
        let parser = JSONPullParser(bytes: Array(#"{"p\u0061th": 1, "pat": 2, "compressedSizeXYZW": 3, "compressedSize": 4}"#.utf8),
                                    code: .manifest, origin: "t")
        try parser.enterObject()
        var matched: [String] = []
        while let name = try parser.nextMember() {
            switch name {
            case "path": matched.append("path")
            case "compressedSize": matched.append("compressedSize")
            default: matched.append("other")
            }
            _ = try parser.unsigned(max: 9)
        }
        #expect(matched == ["path", "other", "other", "compressedSize"])
    }

    @Test(arguments: [
        (#"[1"#, "u", "the text ends inside an array at byte 2"),
        (#"["abc"#, "s", "the text ends inside a string at byte 5"),
        (#"[18446744073709551616]"#, "u", "a number larger than 18446744073709551615 at byte 1"),
        (#"[007]"#, "u", "a number has a leading zero at byte 2"),
        (#"[1e5]"#, "u", "not a fraction or an exponent at byte 2"),
        (#"[1] [2]"#, "u", "text follows the value at byte 4"),
        (#"["\ud83d"]"#, "s", "a surrogate lacks its low half at byte 8"),
        (#"["\udc00"]"#, "s", "names no character"),
        (#"["\u12"]"#, "s", "needs 4 hex digits"),
        (#"[tru]"#, "k", "true is misspelt"),
        (#"[+1]"#, "k", "a value is expected at byte 1"),
        (#"["a" "b"]"#, "ss", "',' or ']' is expected at byte 5"),
    ])
    func faultsNameTheirOffset(_ json: String, _ kinds: String, _ wording: String) {
        for step in [1, 4, 1_000] {
            let error = #expect(throws: AssetPackError.self) { try Self.tokens(Self.parser(Array(json.utf8), step: step), kinds) }
            #expect(error?.code == .manifest && error?.path == "t")
            #expect(error?.message.contains(wording) == true, "\(error?.message ?? "") for \(json)")
        }
    }

    @Test func limitsHold() {
        let deep = Array((String(repeating: "[", count: 65) + String(repeating: "]", count: 65)).utf8)
        let tooDeep = #expect(throws: AssetPackError.self) { try JSONPullParser(bytes: deep, code: .manifest, origin: "t").skipValue() }
        #expect(tooDeep?.message.contains("nested more than 64 deep at byte 64") == true)
        let fine = Array((String(repeating: "[", count: 64) + String(repeating: "]", count: 64)).utf8)
        #expect(throws: Never.self) { try JSONPullParser(bytes: fine, code: .manifest, origin: "t").skipValue() }
        let long = Array(("[\"" + String(repeating: "\\n", count: JSONPullParser.maxStringBytes + 1) + "\"]").utf8)
        let tooLong = #expect(throws: AssetPackError.self) { try Self.tokens(Self.parser(long, step: 4_096), "s") }
        #expect(tooLong?.message.contains("longer than \(JSONPullParser.maxStringBytes) bytes") == true, "\(tooLong?.message ?? "")")
        let text = Array(#"[1, 2, 3]"#.utf8)
        var position = 0
        let limited = JSONPullParser(chunkSize: 4, limit: text.count - 1, code: .manifest, origin: "t") { (buffer) throws(AssetPackError) in
            let count = min(buffer.count, text.count - position)
            for index in 0..<count { buffer[index] = text[position + index] }
            position += count
            return count
        }
        let over = #expect(throws: AssetPackError.self) { try Self.tokens(limited, "uuu") }
        #expect(over?.code == .limitExceeded)
    }
}
