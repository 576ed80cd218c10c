#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one error type of the zip library: what went wrong (``code``), where (archive, entry, offset),
/// and why (``message``, plus an errno or zlib status when the cause came from below).
///
/// Match on ``code`` in code; print the error (``description``) in a log line:
/// `photos.zip: entry "a/b.jpg": CRC-32 mismatch (expected 1a2b3c4d, got 00000000)`.
public struct ZipError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure this is. An open set: new codes may be added.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The bytes are not a zip archive, or a record is malformed.
        public static let format = Code(rawValue: "format")
        /// The archive ends before a record or an entry's data does.
        public static let truncated = Code(rawValue: "truncated")
        /// An entry's data does not match its CRC-32.
        public static let checksum = Code(rawValue: "checksum")
        /// An entry's data is longer or shorter than its declared size.
        public static let sizeMismatch = Code(rawValue: "size-mismatch")
        /// The compression method is not stored or deflate.
        public static let unsupportedMethod = Code(rawValue: "unsupported-method")
        /// The entry is encrypted (ZipCrypto, AES, strong encryption).
        public static let encrypted = Code(rawValue: "encrypted")
        /// A zip feature this library does not implement (multi-disk archives, patched data).
        public static let unsupportedFeature = Code(rawValue: "unsupported-feature")
        /// The deflate stream is damaged.
        public static let corruptData = Code(rawValue: "corrupt-data")
        /// The local header disagrees with the central directory.
        public static let headerMismatch = Code(rawValue: "header-mismatch")
        /// Two entries claim the same bytes (the "overlapping zip bomb"), or an offset points outside the archive.
        public static let overlap = Code(rawValue: "overlap")
        /// A configured limit (entries, total size, compression ratio) was exceeded.
        public static let limitExceeded = Code(rawValue: "limit-exceeded")
        /// No entry has that name.
        public static let notFound = Code(rawValue: "not-found")
        /// A system call failed; ``ZipError/errno`` holds the code.
        public static let io = Code(rawValue: "io")
        /// The archive can only be read with random access (e.g. a stored entry with a data descriptor).
        public static let needsRandomAccess = Code(rawValue: "needs-random-access")
        /// The API was used wrongly (e.g. writing after `finish`).
        public static let invalidArgument = Code(rawValue: "invalid-argument")
    }

    /// What kind of failure this is.
    public var code: Code
    /// A sentence saying what went wrong, without the archive/entry context.
    public var message: String
    /// The archive's path, when known.
    public var archive: String?
    /// The entry's name, when the failure concerns one entry.
    public var entry: String?
    /// The byte offset in the archive where the problem was found, when known.
    public var offset: UInt64?
    /// The errno of a failed system call, when the cause was one.
    public var errno: Int32?

    /// Creates an error; context (archive, entry, offset) is usually added as the error travels up.
    public init(_ code: Code, _ message: String, archive: String? = nil, entry: String? = nil,
                offset: UInt64? = nil, errno: Int32? = nil) {
        self.code = code
        self.message = message
        self.archive = archive
        self.entry = entry
        self.offset = offset
        self.errno = errno
    }

    /// One line: `ARCHIVE: entry "NAME": MESSAGE (at offset N)`.
    public var description: String {
        var parts: [String] = []
        if let archive { parts.append(archive) }
        if let entry { parts.append("entry \"\(entry)\"") }
        var text = message
        if let offset { text += " (at offset \(offset))" }
        parts.append(text)
        return parts.joined(separator: ": ")
    }

    /// Returns a copy with the archive path filled in when it was not known yet.
    public func inArchive(_ path: String?) -> ZipError {
        var copy = self
        if copy.archive == nil { copy.archive = path }
        return copy
    }

    /// Returns a copy with the entry name filled in when it was not known yet.
    public func forEntry(_ name: String?) -> ZipError {
        var copy = self
        if copy.entry == nil { copy.entry = name }
        return copy
    }

    /// An I/O error built from the current `errno` after a failed system call.
    static func system(_ call: String, path: String?, errno code: Int32) -> ZipError {
        let reason = String(cString: strerror(code))
        return ZipError(.io, "\(call) failed: \(reason)", archive: path, errno: code)
    }
}
