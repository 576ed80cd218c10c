import AssetPackZip

/// Reads a packed bundle in full and checks it against its manifest, as `assetpack verify BUNDLE` does:
/// every file the manifest lists, plain or packed, is read through ``PackedBundleSource`` (whose streams
/// check the manifest's size and CRC-32 before they end), then every packing archive is read entry by
/// entry with `ZipArchive/verify()` (each entry's size and CRC-32 against the archive's own headers),
/// entries the manifest does not name included. A file whose manifest entry has a SHA-256 is hashed as it
/// is read and must match it. The first failure is thrown, naming the file.
///
/// - Complexity: reads every byte of the bundle's files once, and every packed entry once more.
public enum BundleVerification {
    /// What a verification read.
    public struct Summary: Sendable, Equatable {
        /// Where the manifest was (`assetpack-meta/manifest.json`, or the legacy `.assetpack/manifest.json`).
        public var manifest: String
        /// Files checked against the manifest.
        public var files: Int
        /// Their bytes (uncompressed).
        public var bytes: UInt64
        /// Packing archives read in full.
        public var archives: Int
        /// Entries of those archives checked.
        public var archiveEntries: Int
    }

    /// Verifies the bundle `base` (a folder, or a bundle inside an archive).
    /// - Throws: `.notFound` when `base` has no manifest; `.manifest` for a malformed one; `.verification`
    ///   naming the first file whose size or CRC-32 differs from the manifest's; `.manifest` when a file's
    ///   storage is missing; `.archive` for a damaged packing archive.
    public static func verify(_ base: any AssetSource) throws(AssetPackError) -> Summary {
        guard let located = try BundleManifest.locate(in: base) else {
            throw AssetPackError(.notFound, "no bundle manifest at \(BundleManifest.path) (or the legacy "
                                 + "\(BundleManifest.legacyReservedDirectory)/\(BundleManifest.manifestName))", path: base.name)
        }
        let view = try PackedBundleSource(base: base, checked: located.manifest)
        var summary = Summary(manifest: located.path, files: 0, bytes: 0, archives: 0, archiveEntries: 0)
        var archives = Set<AssetPath>()
        for entry in located.manifest.entries where entry.kind == .file {
            let path = try AssetPath(entry.path)
            summary.bytes += try drain(try view.open(path), name: view.shown(path), sha256: entry.sha256)
            summary.files += 1
            if case .packed(let archive, _) = try entry.location(origin: located.path) { archives.insert(archive) }
        }
        let access = SourceAccess(base)
        for path in archives.sorted() {
            let archive = try ArchiveHandle(in: access, at: path, limits: .default).archive()
            do {
                try archive.verify()
            } catch {
                throw AssetPackError(error.inArchive("\(base.name): \(path)"))
            }
            summary.archives += 1
            summary.archiveEntries += archive.entries.count { $0.kind != .directory }
        }
        return summary
    }

    /// Reads `stream` to its end (where it checks itself) and checks the bytes against `sha256` when the
    /// manifest records one; returns the bytes read.
    private static func drain(_ stream: any ByteStream, name: String, sha256: String?) throws(AssetPackError) -> UInt64 {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 * 1024, alignment: 16)
        defer { buffer.deallocate() }
        var total: UInt64 = 0
        var hash = SHA256()
        while true {
            let count: Int
            do { count = try stream.read(into: buffer) } catch { throw AssetPackError(error.inArchive(name)) }
            if count == 0 { break }
            if sha256 != nil { hash.update(UnsafeRawBufferPointer(rebasing: buffer[0..<count])) }
            total += UInt64(count)
        }
        if let sha256 {
            let found = hash.finalizeHex()
            guard found == sha256 else {
                throw AssetPackError(.verification, "has SHA-256 \(found), the manifest records \(sha256)", path: name)
            }
        }
        return total
    }
}
