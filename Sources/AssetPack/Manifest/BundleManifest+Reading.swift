import AssetPackSystem
import AssetPackZip

extension BundleManifest {
    /// The largest manifest read, in bytes: 512 MiB. The packer writes about 300 bytes an entry (a SHA-256,
    /// the path twice, the pack and offsets), so this is about 1.5 million files, past the zip layer's
    /// million entries; `encodedJSON()` refuses to write a larger one, so every bundle built can be read.
    public static let maxEncodedSize = 512 << 20

    /// Reads and checks the manifest of the bundle `source` (at ``path``); nil when it has none. Checks: at
    /// most ``maxEncodedSize`` bytes of valid JSON; a known format, valid paths, complete file entries in path
    /// order; an ``identity`` that matches the entries and the small `identity` file beside it, when there.
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

    /// ``locate(named:opening:)``, with `sizing` giving the size of a bundle path when the source knows it (the
    /// entry list is then sized at once). Its entries go to `sink`.
    private static func locate(named name: String, sizing: (String) -> UInt64?, into sink: any ManifestEntrySink,
                               opening open: (String) throws(AssetPackError) -> (any ByteStream)?) throws(AssetPackError) -> Located? {
        guard let stream = try open(path) else { return nil }
        let origin = "\(name): \(path)"
        let manifest = try read(stream, expectedSize: sizing(path), origin: origin, into: sink)
        if let identity = try open(identityPath),
           try readOneLine(identity, origin: "\(name): \(identityPath)") != manifest.identity {
            throw AssetPackError(.manifest, "\(identityPath) disagrees with the manifest's identity", path: origin)
        }
        return Located(manifest: manifest)
    }

    /// Reads the manifest from `stream` (a source that cannot be opened as an ``AssetSource`` yet, such as
    /// Android's asset manager): at most ``maxEncodedSize`` bytes, read and checked as ``read(from:)``
    /// does, without the identity-file check. `origin` names it in messages.
    public static func read(_ stream: any ByteStream, origin: String) throws(AssetPackError) -> BundleManifest {
        let list = ManifestEntryList()
        var manifest = try read(stream, expectedSize: nil, origin: origin, into: list)
        manifest.entries = list.take()
        return manifest
    }

    /// The identity in the bundle's small `identity` file (``identityPath``), or nil when `source` has none:
    /// all that the installer's up-to-date check reads from a bundle.
    static func readIdentity(from source: any AssetSource) throws(AssetPackError) -> String? {
        guard let stream = try open(identityPath, of: source) else { return nil }
        return try readOneLine(stream, origin: "\(source.name): \(identityPath)")
    }

    /// Throws `.manifest` when ``identity`` is not the ``ContentIdentity`` of ``entries``.
    func checkIdentity(origin: String) throws(AssetPackError) {
        guard ContentIdentity.of(entries) == identity else { throw Self.identityMismatch(origin: origin) }
    }

    /// The error of a manifest whose identity is not the one of its entries.
    static func identityMismatch(origin: String) -> AssetPackError {
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

    /// The text of the one-line file `stream` (``OneLineFile``); `origin` names it in errors.
    private static func readOneLine(_ stream: any ByteStream, origin: String) throws(AssetPackError) -> String {
        OneLineFile.text(try zipLayer(stream.readAll(limit: OneLineFile.maxSize), path: origin))
    }

    /// The manifest's name inside a bookkeeping folder.
    static let manifestName = "manifest.json"
    /// The identity file's name inside a bookkeeping folder.
    static let identityName = "identity"
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
