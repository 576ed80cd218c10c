import AssetPackSystem

/// The one error type of the zip library: what went wrong (``code``), where (archive, entry, offset),
/// and why (``message``, plus the ``cause`` when it came from below: a system call and its errno, or a zlib
/// call and its status).
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
        /// A system call failed; ``ZipError/cause`` names it and its errno (also in ``ZipError/errno``).
        public static let io = Code(rawValue: "io")
        /// zlib refused to start or to compress (out of memory, a bad parameter), or gave more output than
        /// it promised; ``ZipError/cause`` holds its status when it returned one. (Damaged deflate data is
        /// ``corruptData``.)
        public static let zlib = Code(rawValue: "zlib")
        /// The archive can only be read with random access (e.g. a stored entry with a data descriptor).
        public static let needsRandomAccess = Code(rawValue: "needs-random-access")
        /// The API was used wrongly (e.g. writing after `finish`).
        public static let invalidArgument = Code(rawValue: "invalid-argument")
        /// The caller stopped the work (a progress callback returned false), e.g. block-parallel inflating.
        public static let cancelled = Code(rawValue: "cancelled")
        /// Data does not match the size or CRC-32 recorded outside the archive, e.g. in a bundle manifest
        /// (thrown by AssetPack's `VerifyingStream`; AssetPack maps it to its own `verification` code).
        public static let verification = Code(rawValue: "verification")
    }

    /// The failure below the zip layer that caused an error, as a value: which call failed and with what.
    public enum Cause: Sendable, Hashable, CustomStringConvertible {
        /// A system call failed: its name (`"pread"`; nil when not known) and the errno it set.
        case system(call: String?, errno: Int32)
        /// A zlib call returned an error status (`Z_DATA_ERROR` is -3, `Z_MEM_ERROR` -4, …).
        case zlib(call: String, status: Int32)
        /// An ISA-L call returned an error status (`ISAL_INVALID_BLOCK` is -1, `ISAL_INVALID_SYMBOL` -2, …).
        case isal(call: String, status: Int32)
        /// A libdeflate call returned an error result (`LIBDEFLATE_BAD_DATA` is 1).
        case libdeflate(call: String, status: Int32)

        /// The errno of a failed system call.
        public var errno: Int32? {
            if case .system(_, let errno) = self { return errno }
            return nil
        }

        /// `pread: errno 5`, `inflate: zlib status -3`.
        public var description: String {
            switch self {
            case .system(let call, let errno): "\(call ?? "system call"): errno \(errno)"
            case .zlib(let call, let status): "\(call): zlib status \(status)"
            case .isal(let call, let status): "\(call): ISA-L status \(status)"
            case .libdeflate(let call, let status): "\(call): libdeflate result \(status)"
            }
        }
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
    /// What failed below, when the cause came from there.
    public var cause: Cause?

    /// The errno of a failed system call, when the cause was one (``Cause/system(call:errno:)``); setting it
    /// records a system call of unknown name.
    public var errno: Int32? {
        get { cause?.errno }
        set { cause = newValue.map { .system(call: nil, errno: $0) } }
    }

    /// Creates an error; context (archive, entry, offset) is usually added as the error travels up.
    /// `errno` is shorthand for a ``cause`` that is a system call of unknown name.
    public init(_ code: Code, _ message: String, archive: String? = nil, entry: String? = nil,
                offset: UInt64? = nil, errno: Int32? = nil, cause: Cause? = nil) {
        self.code = code
        self.message = message
        self.archive = archive
        self.entry = entry
        self.offset = offset
        self.cause = cause ?? errno.map { .system(call: nil, errno: $0) }
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
    package func inArchive(_ path: String?) -> ZipError {
        var copy = self
        if copy.archive == nil { copy.archive = path }
        return copy
    }

    /// Returns a copy with the entry name filled in when it was not known yet.
    package func forEntry(_ name: String?) -> ZipError {
        var copy = self
        if copy.entry == nil { copy.entry = name }
        return copy
    }

    /// The I/O error for a failed system call of the platform layer: `ARCHIVE: CALL failed: REASON`, with
    /// the call and errno as its ``cause``.
    package init(_ error: SystemError) {
        self.init(.io, error.message, archive: error.path, cause: .system(call: error.call, errno: error.errno.rawValue))
    }

    /// A zlib failure: `CALL failed with status N`, with the call and status as its ``cause``.
    static func zlib(_ call: String, status: Int32) -> ZipError {
        ZipError(.zlib, "zlib \(call) failed with status \(status)", cause: .zlib(call: call, status: status))
    }
}

/// Runs a call of the platform layer, throwing its failure as a ``ZipError`` (``ZipError/init(_:)``).
@inline(__always)
func io<T>(_ call: @autoclosure () throws(SystemError) -> T) throws(ZipError) -> T {
    do { return try call() } catch { throw ZipError(error) }
}
