import Foundation

/// What a complete destination holds, written into its `.assetpack/` folder just before the switch:
/// the stamp (identity plus options, in the small `identity` file that the up-to-date check reads) and
/// every file with size, CRC-32 and permissions (in `installed.json`, read only when upgrading, to find
/// the files that did not change).
struct InstallRecord: Codable, Sendable {
    /// One installed file.
    struct File: Codable, Sendable {
        var path: String
        var size: UInt64
        var crc32: UInt32?
        var mode: UInt32
    }

    var format = 1
    var stamp: String
    var files: [File]

    /// Files by path.
    func byPath() -> [String: File] {
        Dictionary(files.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Writes `installed.json`, then the stamp, into the record folder of a tree (created when missing).
    /// `durable` flushes both files and the folder before returning, so the record survives a power loss
    /// (the caller has flushed the files it describes first).
    func write(into tree: Descriptor, durable: Bool) throws(AssetPackError) {
        let folder = try tree.directory(StagingNames.recordDirectory, creatingWith: PermissionPolicy.defaultDirectory)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let bytes: [UInt8]
        do { bytes = Array(try encoder.encode(self)) + [0x0A] } catch {
            throw AssetPackError(.io, "cannot encode the install record: \(error)", path: folder.path)
        }
        try SmallFiles.write(bytes, to: StagingNames.recordFile, in: folder, durable: durable)
        try SmallFiles.write(Array((stamp + "\n").utf8), to: StagingNames.stampFile, in: folder, durable: durable)
        if durable { try FileSystem.sync(folder.fd, path: folder.path) }
    }

    /// The record of a tree, or nil when it has none (or an unreadable one: the tree is then treated as
    /// unknown and nothing in it is reused).
    static func read(from tree: Descriptor) -> InstallRecord? {
        guard let folder = try? tree.directory(StagingNames.recordDirectory),
              let bytes = try? SmallFiles.read(StagingNames.recordFile, in: folder, limit: 512 << 20) else { return nil }
        return try? JSONDecoder().decode(InstallRecord.self, from: Data(bytes))
    }

    /// The stamp of a tree, or nil.
    static func stamp(of tree: Descriptor) -> String? {
        guard let folder = try? tree.directory(StagingNames.recordDirectory),
              let bytes = try? SmallFiles.read(StagingNames.stampFile, in: folder, limit: 4096) else { return nil }
        return trimmed(bytes)
    }

    /// The stamp of the tree at `path`, read with one `open` and one `read` (the up-to-date check).
    static func stamp(atPath path: String) -> String? {
        SmallFiles.read(path: path + "/" + StagingNames.recordDirectory + "/" + StagingNames.stampFile, limit: 4096).map(trimmed)
    }

    private static func trimmed(_ bytes: [UInt8]) -> String {
        String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
