import ArgumentParser
import AssetPack
import AssetPackSystem
import AssetPackZip
import Foundation

/// `assetpack list ARCHIVE`: the entries of a zip archive, or the files of a bundle folder (how each is
/// stored) followed by the entries of its packed archives.
struct ListCommand: ArchiveReadingCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the entries of a zip archive (size, compressed size, method, CRC-32, name), or the files of a bundle folder: size, CRC-32, how each is stored, and the entries of its packed archives.",
        discussion: """
            Examples:
              assetpack list app.apk
              assetpack list assets.bundle --json
            """
    )

    @OptionGroup var archive: ArchiveArgument

    @OptionGroup var format: JSONOption

    func run(bundleFolder folder: String) throws {
        if format.json {
            try BundleListing.printJSON(folder: folder)
        } else {
            try BundleListing.printTable(folder: folder) { print($0, terminator: "") }
        }
    }

    func run(zip: ZipArchive) throws {
        if format.json {
            // Printed as it is read, as the table is.
            try JSONReport.printStreaming(ZipListing(archive: JSONReport.absolute(archive.path)), command: "list",
                                          arrays: [("entries", { (emit: ([UInt8]) -> Void) throws in
                var entries = zip.entries()
                while let entry = try entries.next() { emit(ZipEntryRow(entry).json) }
            })])
        } else {
            // Printed as it is read: a million-entry archive is never held, nor its table.
            try table(zip) { print($0, terminator: "") }
        }
    }
}

/// `list --json` of a zip: the archive and its entries.
struct ZipListing: Encodable {
    var archive: String
    /// Empty: the entries are printed as they are read.
    var entries: [String] = []
}

/// The zip table of `list`: one line per entry, then the total.
func table(_ archive: ZipArchive) throws -> String {
    var out = ""
    try table(archive) { out += $0 }
    return out
}

/// The zip table of `list`, handed to `emit` in pieces of about 64 KiB as the entries are read
/// (``ZipArchive/entries(from:)``: an archive too large to hold its entries is read as a stream).
/// - Throws: ``ZipError`` when the central directory can no longer be read.
func table(_ archive: ZipArchive, emit: (String) -> Void) throws {
    var out = "    Length   Compressed  Method        CRC-32    Name\n"
    var total: UInt64 = 0, count = 0
    var entries = archive.entries()
    while let entry = try entries.next() {
        total += entry.uncompressedSize
        count += 1
        out += pad(entry.uncompressedSize, 10) + "  " + pad(entry.compressedSize, 11) + "  "
        out += padded(entry.method.description, 12) + "  "
        out += hex(entry.crc32) + "  " + AssetPath.printable(entry.name) + "\n"
        if out.utf8.count >= 64 << 10 {
            emit(out)
            out = ""
        }
    }
    emit(out + pad(total, 10) + "  " + String(repeating: " ", count: 39) + "\(count) entries\n")
}

/// `text` followed by spaces up to `width` characters (never cut short).
func padded(_ text: String, _ width: Int) -> String {
    text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
}

/// One entry of `list --json`: a view of the entry, written member by member as it is shown.
struct ZipEntryRow {
    let entry: ZipEntry

    init(_ entry: ZipEntry) { self.entry = entry }

    /// The row as `JSONEncoder` with sorted keys would write it, written directly (``JSONObjectText``):
    /// `method` is `stored`, `deflate` or the method's description; `crc32` 8 hex digits; `mode` the permission
    /// bits in octal, left out when the entry has no Unix mode.
    var json: [UInt8] {
        var row = JSONObjectText()
        row.add("compressedSize", entry.compressedSize)
        row.add("crc32", hex(entry.crc32))
        row.add("encrypted", entry.isEncrypted)
        row.add("kind", entry.kind.rawValue)
        row.add("method", entry.method.rawValue == 0 ? "stored" : (entry.method.rawValue == 8 ? "deflate" : entry.method.description))
        row.add("mode", entry.unixMode.map { String($0 & 0o7777, radix: 8) })
        row.add("name", entry.name)
        row.add("size", entry.uncompressedSize)
        return row.closed
    }
}

func pad(_ value: UInt64, _ width: Int) -> String {
    let text = String(value)
    return String(repeating: " ", count: max(0, width - text.count)) + text
}
