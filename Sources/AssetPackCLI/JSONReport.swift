import AssetPack
import AssetPackSystem
import AssetPackZip
import Foundation

/// What `--json` prints: one compact line per command on stdout, success or failure, with sorted keys.
/// Every line has `"schema": 1` (raised when a field changes meaning or goes away; new fields may be added
/// within a schema), `"command"`, and `"ok"`; a failure adds `"exitStatus"` and `"error"`. Paths are
/// absolute, times ISO 8601 in UTC. The README's "JSON output" section documents every field.
enum JSONReport {
    /// The schema of every line.
    static let schema = 1

    /// Prints `body`'s fields with `schema`, `command` and `ok` as one line.
    static func print<Body: Encodable>(_ body: Body, command: String, ok: Bool = true) {
        Swift.print(line(body, command: command, ok: ok))
    }

    /// `body`'s fields with `schema`, `command` and `ok`, as one line of JSON.
    static func line<Body: Encodable>(_ body: Body, command: String, ok: Bool = true) -> String {
        let encoder = encoder()
        let header = Header(schema: schema, command: command, ok: ok)
        let data = (try? encoder.encode(JSONFields(body, header))) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// Prints the line of `body`, each of whose members `arrays` names is an empty array, with that array's
    /// elements, already encoded as compact JSON (UTF-8), printed as its function hands them over, in pieces of
    /// about 64 KiB. The functions are called in the order their members come in the line (sorted keys).
    /// - Throws: what a function throws (the line is then left unfinished).
    static func printStreaming<Body: Encodable>(_ body: Body, command: String,
                                                arrays: [(key: String, rows: (([UInt8]) -> Void) throws -> Void)]) throws {
        let whole = line(body, command: command)
        let places = arrays.compactMap { array in whole.range(of: "\"\(array.key)\":[]").map { (place: $0, rows: array.rows) } }
            .sorted { $0.place.lowerBound < $1.place.lowerBound }
        var out: [UInt8] = [], printed = whole.startIndex
        func write() {
            Swift.print(String(decoding: out, as: UTF8.self), terminator: "")
            out.removeAll(keepingCapacity: true)
        }
        for array in places {
            out += whole[printed..<array.place.lowerBound].utf8 + whole[array.place].utf8.dropLast()
            printed = array.place.upperBound
            var first = true
            try array.rows { element in
                if !first { out.append(UInt8(ascii: ",")) }
                out += element
                first = false
                if out.count >= 64 << 10 { write() }
            }
            out.append(UInt8(ascii: "]"))
        }
        out += whole[printed...].utf8 + [UInt8(ascii: "\n")]
        write()
    }

    /// `value` as one element of a streamed array: compact JSON with sorted keys.
    static func encoded<Value: Encodable>(_ value: Value) -> String {
        String(decoding: (try? encoder().encode(value)) ?? Data("{}".utf8), as: UTF8.self)
    }

    /// The encoder of every line: sorted keys, slashes as they are, ISO 8601 times.
    private static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601  // `2025-01-31T12:00:00Z`, as the text output writes times
        return encoder
    }

    /// `path` made absolute against the current directory (as given when it already is, or is an address
    /// such as `https://host/app.bundle`).
    static func absolute(_ path: String) -> String {
        guard !path.hasPrefix("/"), !path.contains("://"), path != AssetSources.standardInput, let current = try? FileSystem.currentDirectory() else { return path }
        let relative = path.hasPrefix("./") ? String(path.dropFirst(2)) : path
        return relative.isEmpty || relative == "." ? current : (current == "/" ? "" : current) + "/" + relative
    }

    /// The three fields every line has beside the body's own.
    private struct Header: Encodable {
        let schema: Int
        let command: String
        let ok: Bool
    }
}

/// The fields of two values as one JSON object: a library's result and what a command adds beside it,
/// or a body and the line's header. A key both have takes the second value's.
struct JSONFields<First: Encodable, Second: Encodable>: Encodable {
    let first: First
    let second: Second

    init(_ first: First, _ second: Second) {
        self.first = first
        self.second = second
    }

    func encode(to encoder: any Encoder) throws {
        try first.encode(to: encoder)
        try second.encode(to: encoder)
    }
}

/// The fields of a failure: `{"exitStatus": 77, "error": {"class": "refused", "code": "unsafe-path", …}}`.
struct ErrorReport: Encodable {
    /// The process's exit status.
    var exitStatus: Int32
    var error: Detail

    struct Detail: Encodable {
        /// The class of the exit status (``ExitStatus/name``).
        var `class`: String
        /// The library's error code (`unsafe-path`, …), or `usage` for a command-line error.
        var code: String
        /// The one line the text output prints after `assetpack: error: `.
        var message: String
        /// The file or folder on disk concerned, absolute: for an entry of a source, the source (the archive
        /// or folder given), also when the entry is in an archive stored in it.
        var path: String?
        /// What in `path` is concerned (``AssetPackError/entry``): an archive's entry name, a file's path in a
        /// folder or bundle, or the path of an archive stored in it that the problem is in.
        var entry: String?
        /// The zip layer's code, when the error came from there.
        var zipCode: String?
        /// The failed system call and its errno, when there was one.
        var syscall: String?
        var errno: Int32?
    }

    init(_ status: ExitStatus, code: String, message: String, path: String? = nil, entry: String? = nil,
         zipError: ZipError? = nil, cause: ZipError.Cause? = nil) {
        exitStatus = status.rawValue
        var call: String?
        if case .system(let name, _)? = cause { call = name }
        error = Detail(class: status.name, code: code, message: message, path: path.map(JSONReport.absolute),
                       entry: entry ?? zipError?.entry, zipCode: zipError?.code.rawValue, syscall: call, errno: cause?.errno)
    }

    init(_ error: AssetPackError) {
        self.init(ExitStatus(error), code: error.code.rawValue, message: error.description,
                  path: error.path ?? error.zipError?.archive, entry: error.entry, zipError: error.zipError, cause: error.cause)
    }
}
