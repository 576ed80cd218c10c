import AssetPackZip

extension BundleManifest {
    /// The largest manifest read, in bytes: 256 MiB, about a million files.
    public static let maxEncodedSize = 256 << 20

    /// Reads and checks the manifest of the bundle `source`; nil when it has none. This is the one reader
    /// of manifests: the packed-bundle view, the planner and the packer's incremental build all use it.
    ///
    /// Checks: at most ``maxEncodedSize`` bytes; a known format, valid paths and complete file entries
    /// (``decode(_:origin:)``); an ``identity`` that matches the entries (``ContentIdentity``); and, when
    /// the bundle has the small ``identityPath`` file, that it holds the same identity.
    /// - Throws: `.manifest` for a manifest that fails a check; `.limitExceeded` past the size; read errors.
    public static func read(from source: any AssetSource) throws(AssetPackError) -> BundleManifest? {
        let origin = origin(in: source)
        guard let bytes = try readFile(manifestPath, of: source, limit: maxEncodedSize, origin: origin) else { return nil }
        let manifest = try read(bytes: bytes, origin: origin)
        if let identity = try readIdentity(from: source), identity != manifest.identity {
            throw AssetPackError(.manifest, "\(identityPath) disagrees with the manifest's identity", path: origin)
        }
        return manifest
    }

    /// Reads the manifest from `stream` (a source that cannot be opened as an ``AssetSource`` yet, such as
    /// Android's asset manager): at most ``maxEncodedSize`` bytes, decoded and checked as ``read(from:)``
    /// does, without the identity-file check. `origin` names it in messages.
    public static func read(_ stream: any ByteStream, origin: String) throws(AssetPackError) -> BundleManifest {
        let bytes: [UInt8]
        do {
            bytes = try stream.readAll(limit: maxEncodedSize)
        } catch {
            throw AssetPackError(error, path: origin)
        }
        return try read(bytes: bytes, origin: origin)
    }

    /// Decodes `bytes` and checks the identity against the entries.
    private static func read(bytes: [UInt8], origin: String) throws(AssetPackError) -> BundleManifest {
        let manifest = try decode(bytes, origin: origin)
        try manifest.checkIdentity(origin: origin)
        return manifest
    }

    /// The identity in the bundle's small ``identityPath`` file, or nil when `source` has none: all that
    /// the installer's up-to-date check reads from a bundle.
    static func readIdentity(from source: any AssetSource) throws(AssetPackError) -> String? {
        let origin = "\(source.name): \(identityPath)"
        return try readFile(identityFilePath, of: source, limit: OneLineFile.maxSize, origin: origin).map(OneLineFile.text)
    }

    /// Throws `.manifest` when ``identity`` is not the ``ContentIdentity`` of ``entries``.
    func checkIdentity(origin: String) throws(AssetPackError) {
        guard ContentIdentity.of(entries) == identity else {
            throw AssetPackError(.manifest, "the manifest's identity does not match its entries", path: origin)
        }
    }

    /// Where the manifest of `source` is, for messages.
    static func origin(in source: any AssetSource) -> String { "\(source.name): \(path)" }

    /// The file at `path` of `source`, or nil when it does not exist.
    private static func readFile(_ path: AssetPath, of source: any AssetSource, limit: Int,
                                 origin: String) throws(AssetPackError) -> [UInt8]? {
        let stream: any ByteStream
        do {
            stream = try source.open(path)
        } catch where error.code == .notFound {
            return nil
        }
        do {
            return try stream.readAll(limit: limit)
        } catch {
            throw AssetPackError(error, path: origin)
        }
    }

    private static let manifestPath = try! AssetPath(path)
    private static let identityFilePath = try! AssetPath(identityPath)
}

/// The small one-line text files of a bundle and of an install (the bundle's `.assetpack/identity`, the
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
