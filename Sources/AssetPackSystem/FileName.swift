/// A name read from a directory (the one `readdir` loop of the package), with its exact bytes. A name that is
/// not valid UTF-8 has ``string`` nil and is never repaired with replacement characters (that would name
/// another file): code that shows names refuses it, code that removes trees passes its bytes back to the `…at` calls.
package struct FileName: Hashable, Sendable, CustomStringConvertible {
    /// The name as text; nil when its bytes are not valid UTF-8.
    package let string: String?
    /// The NUL-terminated bytes of a name that is not valid UTF-8 (empty otherwise: `string` has them).
    private let undecodable: [CChar]

    /// The name `string`.
    package init(_ string: String) {
        self.init(string: string, undecodable: [])
    }

    /// The name whose bytes end at the first NUL of `bytes`.
    init(cString bytes: UnsafePointer<CChar>) {
        if let text = String(validatingCString: bytes) {
            self.init(text)
        } else {
            let count = (0...).first { bytes[$0] == 0 }!
            self.init(string: nil, undecodable: Array(UnsafeBufferPointer(start: bytes, count: count + 1)))
        }
    }

    /// The name whose bytes are `bytes` (no NUL).
    package init(bytes: [UInt8]) {
        let terminated = bytes.map { CChar(bitPattern: $0) } + [0]
        self = terminated.withUnsafeBufferPointer { FileName(cString: $0.baseAddress!) }
    }

    /// The name's bytes (no NUL).
    package var bytes: [UInt8] {
        string.map { Array($0.utf8) } ?? undecodable.dropLast().map { UInt8(bitPattern: $0) }
    }

    private init(string: String?, undecodable: [CChar]) {
        self.string = string
        self.undecodable = undecodable
    }

    /// The name for a message: the text, with U+FFFD for bytes that are not UTF-8.
    package var description: String {
        string ?? String(decoding: undecodable.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Calls `body` with the name as a C string (what the `…at` calls take).
    func withCString<T>(_ body: (UnsafePointer<CChar>) -> T) -> T {
        if let string { return string.withCString(body) }
        return undecodable.withUnsafeBufferPointer { body($0.baseAddress!) }
    }

    /// True for `.` and `..`, which listings leave out.
    package var isDotOrDotDot: Bool { string == "." || string == ".." }

    /// Every name left in `stream`, then closes it.
    static func readAll(_ stream: CInterop.DirectoryStream, path: @autoclosure () -> String) throws(SystemError) -> [FileName] {
        defer { _ = system_closedir(stream) }
        var names: [FileName] = []
        while true {
            system_errno = 0
            guard let raw = system_readdir(stream) else {
                let code = Errno.current
                if code.rawValue != 0 { throw SystemError("readdir", code, path: path()) }
                return names
            }
            let name = FileName(cString: raw)
            if !name.isDotOrDotDot { names.append(name) }
        }
    }
}

extension Array where Element == FileName {
    /// Every name as text, or nil when one of them is not valid UTF-8 (see ``FileName``'s policy).
    package var strings: [String]? {
        var result: [String] = []
        result.reserveCapacity(count)
        for name in self {
            guard let string = name.string else { return nil }
            result.append(string)
        }
        return result
    }
}
