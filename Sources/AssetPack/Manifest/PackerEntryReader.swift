/// Reads a manifest entry written exactly as the packer writes it — compact, members in sorted order,
/// each optional member present or absent but never `null`, no escapes, no block index — by walking its
/// bytes once against the expected member names: about a third of what the general reader
/// (``ManifestDirectReader``) costs per entry, which steps member by member through closures and matches
/// each name against every name it knows. Anything else gives nil, and the general reader reads the entry
/// from the same offset, so an entry read here is what the general reader would have made of it.
struct PackerEntryReader {
    let text: JSONBytes
    /// Where reading is.
    private var at: Int

    /// The strings that consecutive entries share, passed in and out: the archive and the method the last
    /// packed entry named (an entry's own path is shared with its `entry` member).
    struct Shared {
        var file: String?
        var method: String?
    }

    private init(text: JSONBytes, at: Int) {
        self.text = text
        self.at = at
    }

    /// The entry whose `{` is at `offset` and where it ends, or nil when it is not laid out as the packer
    /// writes it (`shared` is then unchanged).
    static func entry(in text: JSONBytes, at offset: Int, shared: inout Shared) -> (entry: BundleManifest.Entry, end: Int)? {
        var reader = PackerEntryReader(text: text, at: offset)
        var next = shared
        guard let entry = reader.entry(&next) else { return nil }
        shared = next
        return (entry, reader.at)
    }

    private mutating func entry(_ shared: inout Shared) -> BundleManifest.Entry? {
        guard take("{") else { return nil }
        let crc32 = member("crc32", first: true) ? number(UInt32.self) : .absent
        guard crc32 != .invalid, member("kind", first: crc32 == .absent) else { return nil }
        let kind: BundleManifest.Kind
        if take(#""file""#) { kind = .file } else if take(#""directory""#) { kind = .directory } else { return nil }
        let mode = member("mode") ? number(UInt32.self) : .absent
        guard mode != .invalid, member("path"), let path = string() else { return nil }
        var sha256: String?
        if member("sha256") {
            guard let hash = string() else { return nil }
            sha256 = hash
        }
        let size = member("size") ? number(UInt64.self) : .absent
        guard size != .invalid else { return nil }
        var storage: BundleManifest.Storage?
        if member("storage") {
            guard let read = self.storage(path: path, &shared) else { return nil }
            storage = read
        }
        guard take("}") else { return nil }
        return BundleManifest.Entry(path: path, kind: kind, size: size.value, crc32: crc32.value, storage: storage,
                                    mode: mode.value, sha256: sha256)
    }

    /// A `storage` object without a block index (an entry with one is left to the general reader).
    private mutating func storage(path: String, _ shared: inout Shared) -> BundleManifest.Storage? {
        guard take("{") else { return nil }
        let compressedSize = member("compressedSize", first: true) ? number(UInt64.self) : .absent
        guard compressedSize != .invalid else { return nil }
        let dataOffset = member("dataOffset", first: compressedSize == .absent) ? number(UInt64.self) : .absent
        guard dataOffset != .invalid else { return nil }
        let firstSoFar = compressedSize == .absent && dataOffset == .absent
        var entry: String?
        if member("entry", first: firstSoFar) {
            guard let name = string(reusing: path) else { return nil }
            entry = name
        }
        guard member("file", first: firstSoFar && entry == nil), let file = string(reusing: shared.file), member("form") else { return nil }
        let form: BundleManifest.Storage.Form
        if take(#""packed""#) { form = .packed } else if take(#""plain""#) { form = .plain } else { return nil }
        var method: String?
        if member("method") {
            guard let name = string(reusing: shared.method) else { return nil }
            method = name
        }
        guard take("}") else { return nil }
        shared.file = file
        if method != nil { shared.method = method }
        return BundleManifest.Storage(form: form, file: file, entry: entry, method: method, compressedSize: compressedSize.value,
                                      blocks: nil, blockSHA256: nil, dataOffset: dataOffset.value)
    }

    /// Steps over `literal` when the text has it here.
    private mutating func take(_ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard at + count <= text.count else { return false }
        for index in 0..<count where text.bytes[at + index] != literal.utf8Start[index] { return false }
        at += count
        return true
    }

    /// Steps over `,"name":` (or `"name":` for the object's first member) when the next member is `name`.
    private mutating func member(_ name: StaticString, first: Bool = false) -> Bool {
        let start = at
        guard first || take(","), take("\""), take(name), take("\":") else {
            at = start
            return false
        }
        return true
    }

    /// A number read as the general reader reads it into `Value`, when it is a plain non-negative integer.
    private enum Number<Value: FixedWidthInteger>: Equatable {
        case absent, invalid, value(Value)
        var value: Value? {
            if case .value(let value) = self { return value }
            return nil
        }
    }

    /// The digits here as a `Value`: no sign, no leading zero, no fraction or exponent, in range; else `.invalid`.
    private mutating func number<Value: FixedWidthInteger>(_ type: Value.Type) -> Number<Value> {
        var value: Value = 0
        let start = at
        while at < text.count, case let byte = text.bytes[at], byte &- UInt8(ascii: "0") < 10 {
            let (times, overflow) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = times.addingReportingOverflow(Value(byte &- UInt8(ascii: "0")))
            guard !overflow && !overflow2 else { return .invalid }
            value = next
            at += 1
        }
        let digits = at - start
        guard digits > 0, digits == 1 || text.bytes[start] != UInt8(ascii: "0"),
              at < text.count, text.bytes[at] == UInt8(ascii: ",") || text.bytes[at] == UInt8(ascii: "}") else { return .invalid }
        return .value(value)
    }

    /// The string here, without escapes or control characters, valid UTF-8; `previous` itself when the text
    /// spells exactly its bytes.
    private mutating func string(reusing previous: String? = nil) -> String? {
        guard at < text.count, text.bytes[at] == UInt8(ascii: "\""), let base = text.bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
        else { return nil }
        let start = at + 1
        let end = JSONEscape.firstSpecialByte(base, from: start, to: text.count)
        guard end < text.count, base[end] == UInt8(ascii: "\"") else { return nil }  // an escape, a control character, or no end
        at = end + 1
        if let previous, text.equals(start, end, previous) { return previous }
        return String(validating: UnsafeRawBufferPointer(rebasing: text.bytes[start..<end]), as: UTF8.self)
    }
}
