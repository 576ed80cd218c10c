import AssetPack
import AssetPackZip
import Foundation

/// A small packed bundle built by hand (no packer): the tree's files stored plain at their own paths,
/// except the `packed` ones, each stored as the single entry `NAME` of the archive `PATH.zip`, plus the
/// manifest at `assetpack-meta/manifest.json`.
package struct PackedBundle {
    /// Bundle path → bytes: plain files, packing archives and the manifest.
    package var files: [String: [UInt8]]
    /// The manifest written into ``files``.
    package var manifest: BundleManifest

    /// Packs `tree`; `packed` says which files go into archives and with which method.
    package init(_ tree: AssetTree, packed: [String: CompressionMethod], scratch: TemporaryDirectory) throws {
        var files: [String: [UInt8]] = [:]
        var entries = tree.directories.map { BundleManifest.Entry.directory($0) }
        for (path, bytes) in tree.files {
            let crc = CRC32.checksum(bytes)
            if let method = packed[path] {
                let (archive, written) = try Self.pack(path, bytes, method: method, scratch: scratch)
                files[path + ".zip"] = archive
                entries.append(.file(path, size: UInt64(bytes.count), crc32: crc, storage: .packed(
                    archive: path + ".zip", entry: written.name, method: method == .stored ? "stored" : "deflate",
                    compressedSize: written.compressedSize)))
            } else {
                files[path] = bytes
                entries.append(.file(path, size: UInt64(bytes.count), crc32: crc, storage: .plain(path)))
            }
        }
        manifest = BundleManifest(threshold: 64 * 1024, generator: "assetpack tests", entries: entries)
        files[BundleManifest.path] = try manifest.encodedJSON()
        files[BundleManifest.identityPath] = Array(manifest.identity.utf8)
        self.files = files
    }

    /// The bundle's files as a tree (for writing it as a folder or an archive).
    package var stored: AssetTree { AssetTree(files: files) }

    private static func pack(_ path: String, _ bytes: [UInt8], method: CompressionMethod,
                             scratch: TemporaryDirectory) throws -> ([UInt8], WrittenEntry) {
        let file = scratch.file("pack-\(UUID().uuidString).zip")
        let writer = try ZipWriter(path: file, options: .deterministic())
        let name = String(path.split(separator: "/").last!)
        let written = try writer.addFile(name, contents: bytes, method: method)
        try writer.finish(sync: false)
        return (Array(try Data(contentsOf: URL(fileURLWithPath: file))), written)
    }
}
