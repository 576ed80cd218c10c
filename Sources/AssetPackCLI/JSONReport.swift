import AssetPack
import AssetPackSystem
import AssetPackZip
import Foundation

/// What `--json` prints: one compact line per command on stdout, success or failure, with sorted keys.
/// Every line has `"schema": 1` (raised when a field changes meaning or goes away; new fields may be added
/// within a schema), `"command"`, and `"ok"`; a failure adds `"exitStatus"` and `"error"`. Paths are
/// absolute. The README's "JSON output" section documents every field.
enum JSONReport {
    /// The schema of every line.
    static let schema = 1

    /// Prints `body`'s fields with `schema`, `command` and `ok` as one line.
    static func print<Body: Encodable>(_ body: Body, command: String, ok: Bool = true) {
        Swift.print(line(body, command: command, ok: ok))
    }

    /// `body`'s fields with `schema`, `command` and `ok`, as one line of JSON.
    static func line<Body: Encodable>(_ body: Body, command: String, ok: Bool = true) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(Envelope(body: body, command: command, ok: ok))) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// The line for a failure.
    static func failure(_ error: ErrorReport, command: String) -> String {
        line(error, command: command, ok: false)
    }

    /// `path` made absolute against the current directory (as given when it already is).
    static func absolute(_ path: String) -> String {
        guard !path.hasPrefix("/"), let current = try? FileSystem.currentDirectory() else { return path }
        let relative = path.hasPrefix("./") ? String(path.dropFirst(2)) : path
        return relative.isEmpty || relative == "." ? current : (current == "/" ? "" : current) + "/" + relative
    }

    /// `body`'s own fields beside the three every line has.
    private struct Envelope<Body: Encodable>: Encodable {
        let body: Body
        let command: String
        let ok: Bool

        private enum CodingKeys: String, CodingKey { case schema, command, ok }

        func encode(to encoder: any Encoder) throws {
            try body.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(JSONReport.schema, forKey: .schema)
            try container.encode(command, forKey: .command)
            try container.encode(ok, forKey: .ok)
        }
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
        /// The file or folder concerned, absolute.
        var path: String?
        /// The archive entry concerned.
        var entry: String?
        /// The zip layer's code, when the error came from there.
        var zipCode: String?
        /// The failed system call and its errno, when there was one.
        var syscall: String?
        var errno: Int32?
    }

    init(_ status: ExitStatus, code: String, message: String, path: String? = nil, zipError: ZipError? = nil,
         cause: ZipError.Cause? = nil) {
        exitStatus = status.rawValue
        var call: String?
        if case .system(let name, _)? = cause { call = name }
        error = Detail(class: status.name, code: code, message: message, path: path.map(JSONReport.absolute),
                       entry: zipError?.entry, zipCode: zipError?.code.rawValue, syscall: call, errno: cause?.errno)
    }

    init(_ error: AssetPackError) {
        self.init(ExitStatus(error), code: error.code.rawValue, message: error.description,
                  path: error.path ?? error.zipError?.archive, zipError: error.zipError, cause: error.cause)
    }

    /// A zip-layer error, with the runtime's code for it (``AssetPackError/init(_:path:)``).
    init(_ error: ZipError) {
        self.init(AssetPackError(error))
    }
}
