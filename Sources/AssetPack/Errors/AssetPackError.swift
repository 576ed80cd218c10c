import AssetPackSystem
import AssetPackZip

/// The one error type of the AssetPack runtime and packer: what went wrong (``code``), which file
/// (``path``) and which entry of it (``entry``), why (``message``), and the underlying cause: the failed system call and its errno, or zlib's
/// status (``cause``), and the `ZipError` when it came from the zip layer.
///
/// Printed, it is one line for a log or stderr: `assets/big.bin.zip: entry "big.bin": CRC-32 mismatch ...`.
public struct AssetPackError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is. An open set.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// A path does not exist.
        public static let notFound = Code(rawValue: "not-found")
        /// A name is unsafe: `..`, absolute, backslash, NUL, control characters, too long.
        public static let unsafePath = Code(rawValue: "unsafe-path")
        /// Two entries map to the same place (duplicates, case or normalization twins, file vs directory).
        public static let conflict = Code(rawValue: "conflict")
        /// A symlink was refused or would escape.
        public static let symlink = Code(rawValue: "symlink")
        /// The archive or bundle is broken; ``AssetPackError/zipError`` says how.
        public static let archive = Code(rawValue: "archive")
        /// The bundle manifest is missing fields, malformed, or disagrees with the bundle.
        public static let manifest = Code(rawValue: "manifest")
        /// Data does not match the size or CRC-32 the manifest records.
        public static let verification = Code(rawValue: "verification")
        /// Not enough free space at the destination.
        public static let noSpace = Code(rawValue: "no-space")
        /// A system call failed (``AssetPackError/cause`` names it and its errno), or zlib did.
        public static let io = Code(rawValue: "io")
        /// A configured limit was exceeded.
        public static let limitExceeded = Code(rawValue: "limit-exceeded")
        /// The operation was cancelled.
        public static let cancelled = Code(rawValue: "cancelled")
        /// The caller passed something unusable (e.g. an output folder inside the source).
        public static let invalidArgument = Code(rawValue: "invalid-argument")
        /// Something in the source tree is not supported (e.g. a symlink while packing, a FIFO).
        public static let unsupported = Code(rawValue: "unsupported")
        /// A server could not be reached, or kept failing, after the retries (``BundleDelivery``).
        public static let network = Code(rawValue: "network")
        /// A delivered bundle's manifest is not the one the app trusts: its signature is missing, by another
        /// key or does not verify, or the bundle does not have the pinned identity. Nothing was written.
        public static let untrusted = Code(rawValue: "untrusted")
        /// The app declined to download an update larger than it allows (`FetchOptions.consent`); nothing was
        /// written and the installed tree is as it was.
        public static let declined = Code(rawValue: "declined")
    }

    /// What kind of failure this is.
    public var code: Code
    /// A sentence saying what went wrong.
    public var message: String
    /// The file or folder on disk concerned, as it was given: for a problem with an entry of a source, the
    /// source (the archive or folder), for one inside an archive stored in a source, that source too.
    public var path: String?
    /// What in ``path`` is concerned, when the error is about a part of it: an archive's entry name, a
    /// file's path in a folder or bundle tree, or the path of the archive stored in it that the problem is
    /// in (`pk/inner.zip`; the ``message`` then names that archive's entry, as ``zipError`` does). The
    /// message names it too, so that ``description`` is complete; this field is for programs.
    public var entry: String?
    /// What failed below: a system call and its errno, or a zlib call and its status.
    public var cause: Cause?
    /// The zip layer's error, when the cause was an archive.
    public var zipError: ZipError?

    /// The failure below an error (the zip layer's type, shared).
    public typealias Cause = ZipError.Cause

    /// The errno of a failed system call, when the cause was one; setting it records a system call of
    /// unknown name.
    public var errno: Int32? {
        get { cause?.errno }
        set { cause = newValue.map { .system(call: nil, errno: $0) } }
    }

    /// Creates an error. `errno` is shorthand for a ``cause`` that is a system call of unknown name.
    public init(_ code: Code, _ message: String, path: String? = nil, entry: String? = nil, errno: Int32? = nil,
                cause: Cause? = nil, zipError: ZipError? = nil) {
        self.code = code
        self.message = message
        self.path = path
        self.entry = entry
        self.cause = cause ?? errno.map { .system(call: nil, errno: $0) }
        self.zipError = zipError
    }

    /// Wraps a zip-layer error; codes that have a runtime equivalent keep their meaning. A failed system call
    /// reads in plain words, as the initializer from a `SystemError` words it (the zip error keeps its own text).
    /// ``path`` is `path`, else the zip error's archive; ``entry`` is the zip error's entry when ``path`` is
    /// its archive.
    public init(_ error: ZipError, path: String? = nil) {
        let code: Code = switch error.code {
        case .notFound: .notFound
        case .limitExceeded: .limitExceeded
        case .verification: .verification
        case .io where error.errno == Errno.noSpace.rawValue: .noSpace
        case .io where error.errno == Errno.noSuchFileOrDirectory.rawValue: .notFound
        case .io, .zlib: .io
        default: .archive
        }
        let shown = Self.plainSystemFailure(error).description
        self.init(code, shown, path: path ?? error.archive, cause: error.cause, zipError: error)
        if let archive = error.archive, path == nil || path == archive {
            // The zip error's description starts with the archive path, which is the path.
            var withoutArchive = Self.plainSystemFailure(error)
            withoutArchive.archive = nil
            self.message = withoutArchive.description
            self.entry = error.entry
        }
    }

    /// `error` with the message the zip layer made of a failed system call (`CALL failed: REASON`) in plain
    /// words (`SystemError/reason`); any other error as it is.
    private static func plainSystemFailure(_ error: ZipError) -> ZipError {
        guard error.code == .io, case .system(let call?, let errno)? = error.cause else { return error }
        let failure = SystemError(call, Errno(rawValue: errno), path: nil)
        guard error.message == failure.message else { return error }
        var plain = error
        plain.message = failure.reason
        return plain
    }

    /// One line: `PATH: MESSAGE`.
    public var description: String {
        guard let path else { return message }
        return "\(path): \(message)"
    }

    /// An I/O error for a failed system call: `PATH: REASON` in plain words (`SystemError/reason`), code
    /// ``Code/noSpace`` for `ENOSPC`, ``Code/notFound`` for `ENOENT`, else ``Code/io``; the call and its errno
    /// are the ``cause``.
    public static func system(_ call: String, path: String, errno code: Int32) -> AssetPackError {
        AssetPackError(SystemError(call, Errno(rawValue: code), path: path))
    }

    /// The error for a failed system call of the platform layer: the reason in plain words, never the call's
    /// name (`SystemError/reason`: `no such file or folder`, `permission denied: cannot write here`), with
    /// the call and errno as its ``cause``.
    package init(_ error: SystemError) {
        let code: Code = switch error.errno {
        case .noSpace: .noSpace
        case .noSuchFileOrDirectory: .notFound
        default: .io
        }
        self.init(code, error.reason, path: error.path, cause: .system(call: error.call, errno: error.errno.rawValue))
    }
}

/// Runs a call of the platform layer, throwing its failure as an ``AssetPackError`` (``AssetPackError/init(_:)``).
@inline(__always)
package func io<T>(_ call: @autoclosure () throws(SystemError) -> T) throws(AssetPackError) -> T {
    do { return try call() } catch { throw AssetPackError(error) }
}

/// Runs a call of the zip layer, throwing its failure as an ``AssetPackError`` whose path is `path`, else the
/// archive's (``AssetPackError/init(_:path:)``).
@inline(__always)
package func zipLayer<T>(_ call: @autoclosure () throws(ZipError) -> T, path: String? = nil) throws(AssetPackError) -> T {
    do { return try call() } catch { throw AssetPackError(error, path: path) }
}
