import AssetPack
import Foundation

/// The text form of keys and signatures: a header line naming what the file holds, optional `#` comment
/// lines, optional `name value` field lines, and one line of standard base64 with the raw bytes:
///
/// ```
/// assetpack ed25519 public key
/// # made by assetpack keygen
/// AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=
/// ```
///
/// Lines end with `\n` (a `\r` before it is ignored), blank lines are ignored. Parsing is strict otherwise:
/// another header, an unknown field, a second base64 line or the wrong number of bytes is refused.
struct KeyFile: Equatable {
    /// The first line, e.g. `assetpack ed25519 public key`.
    var header: String
    /// `name value` lines, in order.
    var fields: [(name: String, value: String)] = []
    /// The decoded base64 line.
    var bytes: [UInt8]

    static func == (a: KeyFile, b: KeyFile) -> Bool {
        a.header == b.header && a.bytes == b.bytes && a.fields.elementsEqual(b.fields) { $0 == $1 }
    }

    /// The file's text, ending with a newline.
    var text: String {
        var lines = [header]
        lines += fields.map { "\($0.name) \($0.value)" }
        lines.append(Data(bytes).base64EncodedString())
        return lines.joined(separator: "\n") + "\n"
    }

    /// Parses `text` expecting `header`, the named `fields` (each once, in any order) and `count` bytes.
    /// - Parameter what: what the file should be, for messages ("public key file").
    static func parse(_ text: String, header: String, fields names: Set<String> = [], count: Int, what: String,
                      code: AssetPackError.Code, origin: String?) throws(AssetPackError) -> KeyFile {
        func refuse(_ reason: String) -> AssetPackError {
            AssetPackError(code, "not a valid \(what): \(reason)", path: origin)
        }
        // `\r\n` is one Character in Swift, a newline like `\n`.
        let lines = text.split(whereSeparator: \.isNewline)
            .filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty && !$0.hasPrefix("#") }
        guard let first = lines.first, first == header else {
            throw refuse("the first line must be \"\(header)\"")
        }
        var fields: [(name: String, value: String)] = []
        var payload: [UInt8]?
        for line in lines.dropFirst() {
            if payload != nil { throw refuse("text after the base64 line") }
            let parts = line.split(separator: " ", maxSplits: 1)
            if parts.count == 2 {
                let name = String(parts[0])
                guard names.contains(name), !fields.contains(where: { $0.name == name }) else {
                    throw refuse("unexpected line \"\(name) …\"")
                }
                fields.append((name, String(parts[1])))
                continue
            }
            guard let data = Data(base64Encoded: String(line)), data.count == count else {
                throw refuse("expected one base64 line of \(count) bytes")
            }
            payload = [UInt8](data)
        }
        guard let payload else { throw refuse("the base64 line is missing") }
        guard fields.count == names.count else {
            throw refuse("missing \(names.subtracting(fields.map(\.name)).sorted().joined(separator: ", "))")
        }
        return KeyFile(header: header, fields: fields, bytes: payload)
    }

    func field(_ name: String) -> String? { fields.first { $0.name == name }?.value }
}
