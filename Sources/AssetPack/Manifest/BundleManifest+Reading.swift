import AssetPackSystem
import AssetPackZip

extension BundleManifest {
    /// The largest manifest read, in bytes: 512 MiB. The packer writes about 300 bytes an entry (a SHA-256,
    /// the path twice, the pack and offsets), so this is about 1.5 million files, past the zip layer's
    /// million entries; `encodedJSON()` refuses to write a larger one, so every bundle built can be read.
    public static let maxEncodedSize = 512 << 20

    /// Reads and checks the manifest of the bundle `source`; nil when it has none. This is the one reader
    /// of manifests: the packed-bundle view, the planner, the packer's incremental build, the NDK source
    /// and the container check all use it (``locate(in:)``, ``locate(named:opening:)``).
    ///
    /// The manifest is ``path`` (under ``reservedDirectory``). Checks: at most
    /// ``maxEncodedSize`` bytes; a known format, valid paths and complete file entries
    /// (``decode(_:origin:)``); an ``identity`` that matches the entries (``ContentIdentity``); and, when
    /// the same folder has the small `identity` file, that it holds the same identity.
    /// - Throws: `.manifest` for a manifest that fails a check; `.limitExceeded` past the size; read errors.
    public static func read(from source: any AssetSource) throws(AssetPackError) -> BundleManifest? {
        try locate(in: source)?.manifest
    }

    /// A manifest read from a bundle.
    public struct Located: Sendable {
        /// The manifest, checked as ``BundleManifest/read(from:)`` checks it.
        public let manifest: BundleManifest
        /// Its path in the bundle: ``BundleManifest/path``.
        public var path: String { BundleManifest.path }
    }

    /// Reads the manifest of the bundle `source` as ``read(from:)`` does, and says where it was.
    public static func locate(in source: any AssetSource) throws(AssetPackError) -> Located? {
        let list = ManifestEntryList()
        guard let located = try locate(in: source, into: list) else { return nil }
        return located.with(entries: list.take())
    }

    /// Reads the manifest of the bundle `source` as ``locate(in:)`` does, handing its entries to `sink` as
    /// they are read and checked instead of keeping them: the manifest returned has no
    /// ``BundleManifest/entries``. Nil (and nothing handed over) when the bundle has none.
    static func locate(in source: any AssetSource, into sink: any ManifestEntrySink) throws(AssetPackError) -> Located? {
        let sized = source as? any SizedAssetSource
        return try locate(named: source.name, sizing: { (path) in (try? sized?.size(of: AssetPath(path))).flatMap { $0 } },
                          into: sink) { (path) throws(AssetPackError) in try open(path, of: source) }
    }

    /// Reads the manifest of a bundle that is not an ``AssetSource`` yet (Android's asset manager, before
    /// the tree is known) through `open`, which returns the stream of a bundle path or nil when there is
    /// no such file; as ``read(from:)`` does, the identity file beside the manifest checked. `name` names the
    /// bundle in messages.
    public static func locate(named name: String,
                              opening open: (String) throws(AssetPackError) -> (any ByteStream)?) throws(AssetPackError) -> Located? {
        let list = ManifestEntryList()
        guard let located = try locate(named: name, sizing: { _ in nil }, into: list, opening: open) else { return nil }
        return located.with(entries: list.take())
    }

    /// ``locate(named:opening:)``, with `sizing` giving the size of a bundle path when the source knows it:
    /// the manifest is then read into a buffer of its size when it is read whole, and the entry list is sized at once.
    /// Its entries go to `sink`.
    private static func locate(named name: String, sizing: (String) -> UInt64?, into sink: any ManifestEntrySink,
                               opening open: (String) throws(AssetPackError) -> (any ByteStream)?) throws(AssetPackError) -> Located? {
        guard let stream = try open(path) else { return nil }
        let origin = "\(name): \(path)"
        let manifest = try read(stream, expected: sizing(path), origin: origin, into: sink) { () throws(AssetPackError) in
            guard let again = try open(path) else {
                throw AssetPackError(.notFound, "the manifest disappeared while it was read", path: origin)
            }
            return again
        }
        if let identity = try open(identityPath),
           OneLineFile.text(try readAll(identity, limit: OneLineFile.maxSize, origin: "\(name): \(identityPath)")) != manifest.identity {
            throw AssetPackError(.manifest, "\(identityPath) disagrees with the manifest's identity", path: origin)
        }
        return Located(manifest: manifest)
    }

    /// Reads the manifest from `stream` (a source that cannot be opened as an ``AssetSource`` yet, such as
    /// Android's asset manager): at most ``maxEncodedSize`` bytes, decoded and checked as ``read(from:)``
    /// does, without the identity-file check. `origin` names it in messages.
    public static func read(_ stream: any ByteStream, origin: String) throws(AssetPackError) -> BundleManifest {
        try read(bytes: try readAll(stream, limit: maxEncodedSize, origin: origin), origin: origin)
    }

    /// Reads the manifest from `stream` a chunk at a time (``ManifestStreamReader``), each run of entries
    /// checked (``checkEntries(_:origin:)``) and handed to `sink` while a second thread adds it to the
    /// running identity (``ContentIdentity/Running``); then checks the format and the identity, and only then
    /// throws what `sink` threw (the first; it is handed nothing after). When the text
    /// is not laid out as the packer writes it, or its entries are not in path order, `sink` starts over and
    /// the manifest is read whole from the stream `reopen` returns (the first is partly read then) and
    /// decoded by ``decode(_:origin:)``, which decides and words any error. Returns the manifest without its
    /// entries.
    private static func read(_ stream: any ByteStream, expected: UInt64?, origin: String, into sink: any ManifestEntrySink,
                             reopen: () throws(AssetPackError) -> any ByteStream) throws(AssetPackError) -> BundleManifest {
        let identity = RunningIdentity()
        // What the sink refused (a conflict, say) is reported only once the manifest is known to be intact:
        // a damaged or forged manifest is reported as such, whatever its entries would have led to.
        var refused: AssetPackError?
        let streamed = try ManifestStreamReader.read(stream, expectedSize: expected, limit: maxEncodedSize, origin: origin) {
            (entries, expectedCount) throws(AssetPackError) in
            try WorkerThreads.withHelpers(1, helper: { _ in identity.running.add(entries) }) { () throws(AssetPackError) in
                try checkEntries(entries, origin: origin)
                guard refused == nil else { return }
                do throws(AssetPackError) { try sink.take(entries, expectedCount: expectedCount) } catch { refused = error }
            }
        }
        if let streamed, let computed = identity.running.finalizeHex() {
            try streamed.checkFormat(origin: origin)
            guard computed == streamed.identity else { throw identityMismatch(origin: origin) }
            if let refused { throw refused }
            return streamed
        }
        sink.restart()
        var whole = try read(bytes: try readAll(try reopen(), limit: maxEncodedSize, expected: expected, origin: origin), origin: origin)
        let entries = whole.entries
        whole.entries = []
        try sink.take(entries, expectedCount: entries.count)
        return whole
    }

    /// Decodes `bytes` and checks the identity against the entries.
    private static func read(bytes: [UInt8], origin: String) throws(AssetPackError) -> BundleManifest {
        let manifest = try decode(bytes, origin: origin)
        try manifest.checkIdentity(origin: origin)
        return manifest
    }

    /// The identity in the bundle's small `identity` file (``identityPath``), or nil when `source` has none:
    /// all that the installer's up-to-date check reads from a bundle.
    static func readIdentity(from source: any AssetSource) throws(AssetPackError) -> String? {
        guard let stream = try open(identityPath, of: source) else { return nil }
        return OneLineFile.text(try readAll(stream, limit: OneLineFile.maxSize, origin: "\(source.name): \(identityPath)"))
    }

    /// Throws `.manifest` when ``identity`` is not the ``ContentIdentity`` of ``entries``.
    func checkIdentity(origin: String) throws(AssetPackError) {
        guard ContentIdentity.of(entries) == identity else { throw Self.identityMismatch(origin: origin) }
    }

    private static func identityMismatch(origin: String) -> AssetPackError {
        AssetPackError(.manifest, "the manifest's identity does not match its entries", path: origin)
    }

    /// Where the manifest of `source` is, for messages.
    static func origin(in source: any AssetSource) -> String { "\(source.name): \(path)" }

    /// The file at bundle path `path` of `source` (a constant of this file, always valid), or nil when it
    /// does not exist.
    private static func open(_ path: String, of source: any AssetSource) throws(AssetPackError) -> (any ByteStream)? {
        do {
            return try source.open(try AssetPath(path))
        } catch where error.code == .notFound {
            return nil
        }
    }

    /// All of `stream`, at most `limit` bytes; read into a buffer of `expected` bytes when that is known
    /// (a size that turns out wrong only costs a regrowth).
    private static func readAll(_ stream: any ByteStream, limit: Int, expected: UInt64? = nil,
                                origin: String) throws(AssetPackError) -> [UInt8] {
        do {
            guard let expected, expected < UInt64(limit) else { return try stream.readAll(limit: limit) }
            return try readAll(stream, sized: Int(expected), limit: limit)
        } catch {
            throw AssetPackError(error, path: origin)
        }
    }

    /// `stream` read into a buffer one byte larger than `size` (so the end is seen in place), growing only
    /// when the stream is longer.
    private static func readAll(_ stream: any ByteStream, sized size: Int, limit: Int) throws(ZipError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: size + 1)
        var filled = 0
        while filled < bytes.count {
            let read = bytes.withUnsafeMutableBytes { raw in
                Result { () throws(ZipError) -> Int in try stream.read(into: UnsafeMutableRawBufferPointer(rebasing: raw[filled...])) }
            }
            let count = try read.get()
            if count == 0 {
                bytes.removeLast(bytes.count - filled)
                return bytes
            }
            filled += count
        }
        bytes.append(contentsOf: try stream.readAll(limit: limit - filled))  // longer than said: the rest as it comes
        return bytes
    }

    /// The manifest's name inside a bookkeeping folder.
    static let manifestName = "manifest.json"
    /// The identity file's name inside a bookkeeping folder.
    static let identityName = "identity"
}

/// The identity of a manifest being read: added to by one thread at a time (the helper of each run),
/// read once the last has been joined.
private final class RunningIdentity: @unchecked Sendable {
    var running = ContentIdentity.Running()
}

/// The small one-line text files of a bundle and of an install (the bundle's `assetpack-meta/identity`, the
/// installer's stamp, marker and source files): at most ``maxSize`` bytes, read as UTF-8 text without the
/// ASCII white space around it.
enum OneLineFile {
    /// The most bytes such a file may have.
    static let maxSize = 4096

    /// `bytes` as UTF-8 text without the ASCII white space around it (these files are one line of ASCII;
    /// this keeps Foundation's character sets off the up-to-date path).
    static func text(_ bytes: [UInt8]) -> String {
        let white: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0B, 0x0C, 0x0D]
        guard let first = bytes.firstIndex(where: { !white.contains($0) }),
              let last = bytes.lastIndex(where: { !white.contains($0) }) else { return "" }
        return String(decoding: bytes[first...last], as: UTF8.self)
    }
}
