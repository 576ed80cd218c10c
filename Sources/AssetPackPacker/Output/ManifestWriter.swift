import AssetPack
import AssetPackSystem
import AssetPackZip

/// Writes a bundle's `assetpack-meta/manifest.json` (deterministic JSON, see `BundleManifest`) and
/// `assetpack-meta/identity` (the identity's hex digits alone, no newline), into a bundle folder or as
/// entries of a bundle archive. A build streams its entries into a `BundleManifest.Writer` in path order
/// and ends it with `finish(_:rules:)`. The folder's name survives the default ignore lists of aapt, AGP,
/// SwiftPM and Xcode (`BundleManifest.reservedDirectory` says why).
public enum ManifestWriter {
    /// The generator recorded in every manifest this packer writes.
    public static let generator = "assetpack 0.1.0"

    /// The manifest of `entries` built under `rules`.
    public static func manifest(_ entries: [BundleManifest.Entry], rules: PackingRules) -> BundleManifest {
        var manifest = BundleManifest(threshold: rules.threshold, generator: generator, entries: entries)
        manifest.packing = rules.fingerprint
        return manifest
    }

    /// Ends the manifest `writer` took a build's entries into, in path order: the members after the
    /// entries, with the identity of those entries, which is returned.
    static func finish(_ writer: inout BundleManifest.Writer, rules: PackingRules) throws(AssetPackError) -> String {
        var header = manifest([], rules: rules)
        header.identity = try writer.identity()
        try writer.finish(header)
        return header.identity
    }

    /// The manifest entry of a source file: mode 0755 is recorded for executables only.
    static func fileEntry(_ item: SourceItem, crc32: UInt32, storage: BundleManifest.Storage,
                          sha256: String? = nil) -> BundleManifest.Entry {
        .file(item.path.string, size: item.size, crc32: crc32, storage: storage, mode: item.isExecutable ? 0o755 : nil,
              sha256: sha256)
    }

    /// Writes the reserved folder with both files of a whole `manifest` into the bundle folder `root`.
    /// - Returns: the bytes written.
    @discardableResult
    public static func write(_ manifest: BundleManifest, intoFolder root: String) throws(AssetPackError) -> UInt64 {
        let folder = root + "/" + BundleManifest.reservedDirectory
        if try io(FileSystem.status(folder)) == nil { try io(FileSystem.makeDirectory(folder)) }  // pack archives may be there
        let json = try manifest.encodedJSON()
        let identity = Array(manifest.identity.utf8)
        try writeFile(root + "/" + BundleManifest.path, json)
        try writeFile(root + "/" + BundleManifest.identityPath, identity)
        return UInt64(json.count + identity.count)
    }

    /// Adds the reserved folder, the identity and the manifest's text, spooled in `json`, as the last
    /// entries of `writer`.
    static func add(_ json: SpoolFile, identity: String, to writer: ZipWriter) throws(AssetPackError) {
        do {
            try writer.addDirectory(BundleManifest.reservedDirectory)
            try writer.addFile(BundleManifest.identityPath, contents: Array(identity.utf8), method: .stored)
            try writer.addFile(BundleManifest.path, from: json, size: json.size, method: .deflate)
        } catch {
            throw AssetPackError(error)
        }
    }

    /// Creates the file `path` holding `bytes`.
    static func writeFile(_ path: String, _ bytes: [UInt8]) throws(AssetPackError) {
        let fd = try io(FileSystem.createFile(path, permissions: 0o644))
        do throws(AssetPackError) {
            try io(fd.writeAll(bytes, path: path))
        } catch {
            fd.close()
            throw error
        }
        try io(fd.closeAfterWriting(path: path))
    }
}
