import AssetPack
import AssetPackSystem
import AssetPackZip
import Foundation

/// What `assetpack list BUNDLE` shows of a bundle folder: every file its manifest lists, with size,
/// CRC-32 and how it is stored (plain, or packed in an archive as an entry, with the method), then the
/// entries of each packed archive as `list` shows a zip.
enum BundleListing {
    /// Prints the text of `list BUNDLE` for the bundle `folder` through `emit`, in pieces of about 64 KiB, as
    /// the manifest is read: once for the heading's counts and the width of the names, once for the rows;
    /// then each packed archive's table as it is read. No list of entries is held.
    /// - Throws: `.invalidArgument` when the folder has no manifest; the reader's and the zip layer's errors;
    ///   `.manifest` when the manifest changed between the two readings.
    static func printTable(folder: String, emit: (String) -> Void) throws {
        let source = DirectorySource(root: folder)
        var tally = Tally()
        guard let first = try BundleManifest.visitEntries(in: source, { tally.add($0) }) else { throw ListCommand.notABundle(folder) }
        var out = tally.heading(folder: folder, manifest: first.path)
        let rows = tally
        try readAgain(source, as: first, in: folder) { (entry) in
            guard entry.kind == .file else { return }
            out += rows.row(entry)
            if out.utf8.count >= 64 << 10 {
                emit(out)
                out = ""
            }
        }
        emit(out + tally.total)
        for path in tally.archives.sorted() {
            let archive = try packedArchive(path, in: folder)
            emit("\n\(AssetPath.printable(path)):\n")
            try AssetPackCLI.table(archive, emit: emit)
        }
    }

    /// Prints the line of `list --json BUNDLE` for the bundle `folder` from one reading of the manifest: the files'
    /// and folders' rows are spooled (``RowSpool``), because the line's members come in key order (`archives`,
    /// `files`, `folders`); each packed archive's entries are printed as it is read, the spooled rows after them.
    /// - Throws: as ``printTable(folder:emit:)``; `.io` when the temporary folder cannot take the spool.
    static func printJSON(folder: String) throws {
        let source = DirectorySource(root: folder)
        var tally = Tally()
        let files = try RowSpool(), folders = try RowSpool()
        var spoolError: AssetPackError?
        let first = try BundleManifest.visitEntries(in: source) { (entry) in
            tally.add(entry)
            do throws(AssetPackError) {
                try (entry.kind == .file ? files : folders).append(entry.kind == .file ? FileRow(entry).json : JSONObjectText.quoted(entry.path))
            } catch { spoolError = spoolError ?? error }
        }
        if let spoolError { throw spoolError }
        guard let first else { throw ListCommand.notABundle(folder) }
        let heading = Listing(bundle: JSONReport.absolute(folder), manifest: first.path)
        let archives: (([UInt8]) -> Void) throws -> Void = { emit in
            for path in tally.archives.sorted() {
                let archive = try packedArchive(path, in: folder)
                var text = Array("{\"entries\":[".utf8)
                var entries = archive.entries()
                while let entry = try entries.next() {
                    if text.last != UInt8(ascii: "[") { text.append(UInt8(ascii: ",")) }
                    text += ZipEntryRow(entry).json
                }
                emit(text + "],\"path\":".utf8 + JSONObjectText.quoted(path) + [UInt8(ascii: "}")])
            }
        }
        try JSONReport.printStreaming(heading, command: "list", arrays: [
            ("archives", archives),
            ("files", { (emit) throws in try files.forEachRow(emit) }),
            ("folders", { (emit) throws in try folders.forEachRow(emit) }),
        ])
    }

    /// Reads the manifest of `source` (the bundle `folder`) once more, handing each entry to `visit`.
    /// - Throws: `.manifest` when it is no longer the manifest an earlier reading found (`earlier`); the
    ///   reader's errors.
    private static func readAgain(_ source: DirectorySource, as earlier: BundleManifest.Located, in folder: String,
                                  _ visit: (BundleManifest.Entry) -> Void) throws(AssetPackError) {
        let again = try BundleManifest.visitEntries(in: source) { visit($0) }
        guard let again, again.manifest.identity == earlier.manifest.identity else {
            throw AssetPackError(.manifest, "changed while it was listed", path: folder + "/" + earlier.path)
        }
    }

    /// The packed archive at bundle path `path` of `folder`, opened.
    private static func packedArchive(_ path: String, in folder: String) throws(AssetPackError) -> ZipArchive {
        try zipLayer(ZipArchive(path: folder + "/" + path))
    }

    /// What the text listing needs before its first row: counts, the total size, the widest name and the
    /// packed archives.
    struct Tally {
        var files = 0, folders = 0
        var bytes: UInt64 = 0
        var width = 4
        var archives: Set<String> = []

        mutating func add(_ entry: BundleManifest.Entry) {
            guard entry.kind == .file else { return folders += 1 }
            files += 1
            bytes += entry.size ?? 0
            width = max(width, AssetPath.printable(entry.path).count)
            if let storage = entry.storage, storage.form == .packed { archives.insert(storage.file) }
        }

        /// The first line and the column heads.
        func heading(folder: String, manifest: String) -> String {
            "\(folder): \(counted(files, "file")), \(counted(folders, "folder")), "
                + "\(counted(archives.count, "packed archive")) (\(manifest))\n"
                + "    Length  CRC-32    " + padded("Name", width) + "  Stored\n"
        }

        /// The line of one file.
        func row(_ file: BundleManifest.Entry) -> String {
            pad(file.size ?? 0, 10) + "  " + hex(file.crc32 ?? 0) + "  "
                + padded(AssetPath.printable(file.path), width) + "  " + AssetPath.printable(BundleListing.stored(file)) + "\n"
        }

        /// The line after the rows.
        var total: String { pad(bytes, 10) + "            \(counted(files, "file"))\n" }
    }

    /// `plain`, or `packed in ARCHIVE as ENTRY, METHOD[, N chunks]` (`N blocks` for blocks of a fixed size).
    static func stored(_ file: BundleManifest.Entry) -> String {
        guard let storage = file.storage, storage.form == .packed else { return "plain" }
        var text = "packed in \(storage.file) as \(storage.entry ?? ""), \(storage.method ?? "?")"
        if let blocks = storage.blocks { text += ", \(blocks.count) \(storage.chunking == nil ? "blocks" : "chunks")" }
        return text
    }

    /// Rows of `list --json`, each one line of compact JSON, kept in an unlinked temporary file (a few MiB in
    /// memory at most) until they are printed.
    final class RowSpool {
        private let spool: SpoolFile

        /// An empty spool in the system's temporary folder.
        init() throws(AssetPackError) {
            spool = SpoolFile(beside: FileManager.default.temporaryDirectory.path + "/.assetpack-list-\(CurrentProcess.id)")
        }

        /// Adds `row` (compact JSON: no line break in it).
        func append(_ row: [UInt8]) throws(AssetPackError) {
            try zipLayer(spool.append(row + [UInt8(ascii: "\n")]))
        }

        /// Hands each row to `emit`, in the order they were added.
        func forEachRow(_ emit: ([UInt8]) -> Void) throws(AssetPackError) {
            var pending: [UInt8] = []
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 1)
            defer { buffer.deallocate() }
            while true {
                let count = try zipLayer(spool.read(into: buffer))
                guard count > 0 else { break }
                var start = 0
                for index in 0..<count where buffer[index] == UInt8(ascii: "\n") {
                    pending.append(contentsOf: buffer[start..<index])
                    emit(pending)
                    pending.removeAll(keepingCapacity: true)
                    start = index + 1
                }
                pending.append(contentsOf: buffer[start..<count])
            }
        }
    }

    /// `list --json` of a bundle: the folder, where its manifest is, its files, folders and packed archives. The
    /// arrays stay empty: their elements are printed as they are read (``JSONReport/printStreaming(_:command:arrays:)``).
    struct Listing: Encodable {
        var bundle, manifest: String
        var files: [String] = []
        var folders: [String] = []
        var archives: [String] = []
    }

    /// One file of `list --json` for a bundle: a view of its manifest entry, written member by member as it is
    /// shown.
    struct FileRow {
        let file: BundleManifest.Entry

        init(_ file: BundleManifest.Entry) { self.file = file }

        /// The row as `JSONEncoder` with sorted keys would write it, written directly (``JSONObjectText``):
        /// `crc32` is 8 hex digits, `mode` octal; `storage` is the form (`plain` without one) and `file` the
        /// bundle file that holds the data; `blocks` counts the block index (the chunks), `chunking` names the rule.
        var json: [UInt8] {
            let storage = file.storage
            var row = JSONObjectText()
            row.add("blocks", storage?.blocks?.count)
            row.add("chunking", storage?.chunking)
            row.add("compressedSize", storage?.compressedSize)
            row.add("crc32", hex(file.crc32 ?? 0))
            row.add("entry", storage?.entry)
            row.add("file", storage?.file ?? file.path)
            row.add("method", storage?.method)
            row.add("mode", file.mode.map { String($0, radix: 8) })
            row.add("path", file.path)
            row.add("size", file.size ?? 0)
            row.add("storage", storage?.form.rawValue ?? "plain")
            return row.closed
        }
    }
}
