import ArgumentParser
import AssetPackZip
import Foundation

/// `assetpack list ARCHIVE`: the entries of a zip archive.
struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the entries of a zip archive: size, compressed size, method, CRC-32 and name."
    )

    @OptionGroup var archive: ArchiveArgument

    @Flag(help: "Print a JSON array instead of a table.")
    var json = false

    func run() throws {
        try Reporting.run {
            let opened = try ZipArchive(path: archive.path)
            if json {
                print(try jsonListing(opened))
            } else {
                print(table(opened), terminator: "")
            }
        }
    }

    private func table(_ archive: ZipArchive) -> String {
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

    private func jsonListing(_ archive: ZipArchive) throws -> String {
        let rows = archive.entries.map {
            Row(name: $0.name, kind: $0.kind.rawValue, size: $0.uncompressedSize, compressedSize: $0.compressedSize,
                method: $0.method.rawValue == 0 ? "stored" : ($0.method.rawValue == 8 ? "deflate" : $0.method.description),
                crc32: hex($0.crc32), mode: $0.unixMode.map { String($0 & 0o7777, radix: 8) }, encrypted: $0.isEncrypted)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(rows), as: UTF8.self)
    }

    private struct Row: Encodable {
        var name: String
        var kind: String
        var size: UInt64
        var compressedSize: UInt64
        var method: String
        var crc32: String
        var mode: String?
        var encrypted: Bool
    }
}

func pad(_ value: UInt64, _ width: Int) -> String {
    let text = String(value)
    return String(repeating: " ", count: max(0, width - text.count)) + text
}
