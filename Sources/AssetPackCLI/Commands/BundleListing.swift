import AssetPack
import AssetPackZip
import Foundation

/// What `assetpack list BUNDLE` shows of a bundle folder: every file its manifest lists, with size,
/// CRC-32 and how it is stored (plain, or packed in an archive as an entry, with the method), then the
/// entries of each packed archive as `list` shows a zip.
struct BundleListing {
    /// The bundle folder.
    let folder: String
    /// Its manifest, and where it was.
    let located: BundleManifest.Located
    /// The packed archives (bundle paths, sorted) and their contents.
    let archives: [(path: String, archive: ZipArchive)]

    /// Reads the manifest of the bundle `folder` and opens its packed archives.
    /// - Throws: `.invalidArgument` when the folder has no manifest (``ArchiveReadingCommand/notABundle(_:)``); the reader's and the zip layer's errors.
    init(folder: String) throws(AssetPackError) {
        guard let located = try BundleManifest.locate(in: DirectorySource(root: folder)) else {
            throw ListCommand.notABundle(folder)
        }
        self.folder = folder
        self.located = located
        var archives: [(String, ZipArchive)] = []
        for path in Set(located.manifest.entries.compactMap { $0.storage?.form == .packed ? $0.storage?.file : nil }).sorted() {
            do {
                archives.append((path, try ZipArchive(path: folder + "/" + path)))
            } catch {
                throw AssetPackError(error)
            }
        }
        self.archives = archives
    }

    private var files: [BundleManifest.Entry] { located.manifest.entries.filter { $0.kind == .file } }
    private var folders: [BundleManifest.Entry] { located.manifest.entries.filter { $0.kind == .directory } }

    /// The heading, the file table with its total, and one zip table per packed archive.
    /// - Throws: ``ZipError`` when a packed archive's central directory can no longer be read.
    func table() throws -> String {
        let names = files.map { AssetPath.printable($0.path) }
        let width = max(4, names.map(\.count).max() ?? 0)
        var out = "\(folder): \(counted(files.count, "file")), \(counted(folders.count, "folder")), "
            + "\(counted(archives.count, "packed archive")) (\(located.path))\n"
        out += "    Length  CRC-32    " + padded("Name", width) + "  Stored\n"
        var total: UInt64 = 0
        for (file, name) in zip(files, names) {
            total += file.size ?? 0
            out += pad(file.size ?? 0, 10) + "  " + hex(file.crc32 ?? 0) + "  "
            out += padded(name, width) + "  " + AssetPath.printable(Self.stored(file)) + "\n"
        }
        out += pad(total, 10) + "            \(counted(files.count, "file"))\n"
        for (path, archive) in archives { out += "\n\(AssetPath.printable(path)):\n" + (try AssetPackCLI.table(archive)) }
        return out
    }

    /// `plain`, or `packed in ARCHIVE as ENTRY, METHOD[, N blocks]`.
    static func stored(_ file: BundleManifest.Entry) -> String {
        guard let storage = file.storage, storage.form == .packed else { return "plain" }
        var text = "packed in \(storage.file) as \(storage.entry ?? ""), \(storage.method ?? "?")"
        if let blocks = storage.blocks { text += ", \(blocks.count) blocks" }
        return text
    }

    /// The fields of `list --json` for a bundle.
    var report: Listing {
        Listing(bundle: JSONReport.absolute(folder), manifest: located.path, files: files.map(FileRow.init),
                folders: folders.map(\.path),
                archives: archives.map { ArchiveRow(path: $0.path, entries: $0.archive.entries.map(ZipEntryRow.init)) })
    }

    /// `list --json` of a bundle: the folder, where its manifest is, its files, folders and packed archives.
    struct Listing: Encodable {
        var bundle, manifest: String
        var files: [FileRow]
        var folders: [String]
        var archives: [ArchiveRow]
    }

    /// One file of `list --json` for a bundle: a view of its manifest entry, encoded field by field as it is shown.
    struct FileRow: Encodable {
        let file: BundleManifest.Entry

        init(_ file: BundleManifest.Entry) { self.file = file }

        private enum CodingKeys: String, CodingKey {
            case path, size, crc32, mode, storage, file, entry, method, compressedSize, blocks
        }

        /// `crc32` is 8 hex digits, `mode` octal; `storage` is the form (`plain` without one) and `file` the
        /// bundle file that holds the data (the file itself when plain); `blocks` counts the block index.
        func encode(to encoder: any Encoder) throws {
            var row = encoder.container(keyedBy: CodingKeys.self)
            try row.encode(file.path, forKey: .path)
            try row.encode(file.size ?? 0, forKey: .size)
            try row.encode(hex(file.crc32 ?? 0), forKey: .crc32)
            try row.encodeIfPresent(file.mode.map { String($0, radix: 8) }, forKey: .mode)
            let storage = file.storage
            try row.encode(storage?.form.rawValue ?? "plain", forKey: .storage)
            try row.encode(storage?.file ?? file.path, forKey: .file)
            try row.encodeIfPresent(storage?.entry, forKey: .entry)
            try row.encodeIfPresent(storage?.method, forKey: .method)
            try row.encodeIfPresent(storage?.compressedSize, forKey: .compressedSize)
            try row.encodeIfPresent(storage?.blocks?.count, forKey: .blocks)
        }
    }

    struct ArchiveRow: Encodable {
        var path: String
        var entries: [ZipEntryRow]
    }
}
