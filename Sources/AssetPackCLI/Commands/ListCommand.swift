import ArgumentParser
import AssetPack
import AssetPackSystem
import AssetPackZip
import Foundation

/// `assetpack list ARCHIVE`: the entries of a zip archive, or the files of a bundle folder (how each is
/// stored) followed by the entries of its packed archives.
struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the entries of a zip archive (size, compressed size, method, CRC-32, name), or the files of a bundle folder: size, CRC-32, how each is stored, and the entries of its packed archives."
    )

    @OptionGroup var archive: ArchiveArgument

    @Flag(help: "Print JSON instead of a table: an array of entries for a zip, an object for a bundle.")
    var json = false

    func run() throws {
        try Reporting.run {
            if try io(FileSystem.status(archive.path))?.kind == .directory {
                let bundle = try BundleListing(folder: archive.path)
                print(json ? try bundle.json() : bundle.table(), terminator: json ? "\n" : "")
                return
            }
            let opened = try ZipArchive(path: archive.path)
            if json {
                print(try jsonListing(opened))
            } else {
                print(table(opened), terminator: "")
            }
        }
    }

    private func jsonListing(_ archive: ZipArchive) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(archive.entries.map(ZipEntryRow.init)), as: UTF8.self)
    }
}

/// The zip table of `list`: one line per entry, then the total.
func table(_ archive: ZipArchive) -> String {
    var out = "    Length   Compressed  Method        CRC-32    Name\n"
    var total: UInt64 = 0
    for entry in archive.entries {
        total += entry.uncompressedSize
        out += pad(entry.uncompressedSize, 10) + "  " + pad(entry.compressedSize, 11) + "  "
        out += entry.method.description.padding(toLength: 12, withPad: " ", startingAt: 0) + "  "
        out += hex(entry.crc32) + "  " + entry.name + "\n"
    }
    out += pad(total, 10) + "  " + String(repeating: " ", count: 39) + "\(archive.entries.count) entries\n"
    return out
}

/// One entry of `list --json`.
struct ZipEntryRow: Encodable {
    var name: String
    var kind: String
    var size: UInt64
    var compressedSize: UInt64
    var method: String
    var crc32: String
    var mode: String?
    var encrypted: Bool

    init(_ entry: ZipEntry) {
        name = entry.name
        kind = entry.kind.rawValue
        size = entry.uncompressedSize
        compressedSize = entry.compressedSize
        method = entry.method.rawValue == 0 ? "stored" : (entry.method.rawValue == 8 ? "deflate" : entry.method.description)
        crc32 = hex(entry.crc32)
        mode = entry.unixMode.map { String($0 & 0o7777, radix: 8) }
        encrypted = entry.isEncrypted
    }
}

func pad(_ value: UInt64, _ width: Int) -> String {
    let text = String(value)
    return String(repeating: " ", count: max(0, width - text.count)) + text
}
