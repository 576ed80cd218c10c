import AssetPackSystem
import Foundation

/// What a complete destination holds, written into its `.assetpack/` folder just before the switch: the
/// stamp (identity plus options, in `identity`, which the up-to-date check reads), every file, folder and
/// link with its size, CRC-32, permissions or target (`installed.json.gz`, read by upgrades and
/// ``InstalledTreeCheck``), and for an archive given as the source its ``SourceFingerprint`` (`source`).
enum InstallRecord {
    /// One installed file.
    struct File: Codable, Sendable {
        var path: String
        var size: UInt64
        var crc32: UInt32?
        var mode: UInt32
        /// The SHA-256 the bundle's manifest records for it, when it has one: an upgrade reuses the file only
        /// when the new manifest records the same (a CRC-32 is easy to forge).
        var sha256: String? = nil
        /// The file's inode number and its modification time in nanoseconds since 1970 (`st_mtim`), as the install
        /// left it: an upgrade links the installed file only while both are unchanged. Nil in older records.
        var inode: UInt64? = nil
        var mtime: UInt64? = nil
    }

    /// One installed folder.
    struct Directory: Codable, Sendable {
        var mode: UInt32
        var path: String
    }

    /// One installed symbolic link.
    struct Link: Codable, Sendable {
        var path: String
        var target: String
    }

    /// The number of entries of each list, written before the lists (`counts`) so that a reader of an empty list
    /// stops there instead of reading past the others.
    struct Counts: Codable, Sendable, Equatable {
        var directories: Int
        var files: Int
        var links: Int
    }

    /// The format of the records this code writes.
    static let currentFormat = 1

    /// Writes a record in two steps, around the flush of the tree it describes: first its contents
    /// (``writeContents(into:source:stamp:json:)``: `installed.json.gz` and `source`), written with the tree's
    /// files so that the same flush puts them on the device; then the stamp (``writeStamp(_:into:durable:)``),
    /// the commit point, flushed with the folder, so a power loss leaves a stamp only over a complete record.
    /// `json` hands the record's JSON text to its argument piece by piece; it is written compressed
    /// (`installed.json.gz`, ``RecordCompression``), and a plain `installed.json` an older version left is removed.
    static func writeContents(into tree: Descriptor, source: String?, stamp: String,
                              json: ((borrowing [UInt8]) throws(AssetPackError) -> Void) throws(AssetPackError) -> Void) throws(AssetPackError) {
        let folder = try io(tree.directory(StagingNames.recordDirectory, creatingWith: PermissionPolicy.defaultDirectory))
        let origin = folder.path + "/" + StagingNames.recordFile
        try SmallFiles.write(to: StagingNames.recordFile, in: folder, durable: false) { (write) throws(AssetPackError) in
            try RecordCompression.compress(json, into: write, origin: origin)
        }
        try io(folder.remove(StagingNames.plainRecordFile))
        if let source {
            try SmallFiles.write(Array("\(source) \(stamp)\n".utf8), to: StagingNames.sourceFile, in: folder, durable: false)
        }
    }

    /// The record's files in its folder (``StagingNames/recordDirectory``), for a flush of each.
    static let fileNames = [StagingNames.recordFile, StagingNames.sourceFile, StagingNames.stampFile]

    /// Writes the stamp into the record folder of `tree`, whose contents are written (and, when `durable`,
    /// on the device with the tree); `durable` flushes it and the folder before returning.
    static func writeStamp(_ stamp: String, into tree: Descriptor, durable: Bool) throws(AssetPackError) {
        let folder = try io(tree.directory(StagingNames.recordDirectory, creatingWith: PermissionPolicy.defaultDirectory))
        try SmallFiles.write(Array((stamp + "\n").utf8), to: StagingNames.stampFile, in: folder, durable: durable)
        if durable { try io(folder.fd.sync(path: folder.path)) }
    }

    /// The most bytes the record's JSON text may have (once inflated).
    static let maxRecordSize = 512 << 20

    /// The tree's record file, opened (`installed.json.gz`, or the plain `installed.json` of an older install when
    /// it has no compressed one), or nil when it has none.
    static func recordFile(of tree: Descriptor) -> Descriptor? {
        guard let folder = try? tree.directory(StagingNames.recordDirectory), let name = recordFileName(in: folder) else { return nil }
        return try? folder.openFile(name)
    }

    /// The name of the record file in the record folder `folder`, or nil when it holds none (as a regular file).
    static func recordFileName(in folder: Descriptor) -> String? {
        [StagingNames.recordFile, StagingNames.plainRecordFile].first { (try? folder.status($0))??.kind == .file }
    }

    /// The stamp of a tree, or nil. A stamp counts only beside the record it stamps (``recordFile(of:)``): a stray
    /// identity file proves nothing, and a folder holding only one is never "up to date" nor replaced.
    static func stamp(of tree: Descriptor) -> String? {
        guard let folder = try? tree.directory(StagingNames.recordDirectory), recordFileName(in: folder) != nil,
              let bytes = try? SmallFiles.read(StagingNames.stampFile, in: folder, limit: 4096) else { return nil }
        return text(bytes)
    }

    /// The stamp of the tree at `path` (the up-to-date check), or nil. The record folder and the stamp are
    /// opened without following a link: a record that is a link to a copy elsewhere proves nothing.
    static func stamp(atPath path: String) -> String? {
        guard let tree = try? Descriptor.directory(path) else { return nil }
        return stamp(of: tree)
    }

    /// The source fingerprint and stamp recorded in the tree at `path` (`"<fingerprint> <stamp>"`), or nil;
    /// read as ``stamp(atPath:)`` reads the stamp.
    static func sourceFingerprint(atPath path: String) -> String? {
        guard let tree = try? Descriptor.directory(path), let folder = try? tree.directory(StagingNames.recordDirectory),
              let bytes = try? SmallFiles.read(StagingNames.sourceFile, in: folder, limit: 4096) else { return nil }
        return text(bytes)
    }

    /// The line of a record file (a stamp, or a fingerprint and a stamp, or a staging marker), with a bundle's
    /// stamp as it is written now (``ContentIdentity/current(_:)``): a tree installed before stays up to date.
    static func text(_ bytes: [UInt8]) -> String { ContentIdentity.current(OneLineFile.text(bytes)) }
}
