import Foundation
import Testing
import TestSupport
@testable import AssetPackZip

/// A 0x7075 Info-ZIP Unicode Path block: version 1, CRC-32 of the raw header name, the UTF-8 name.
func unicodePathBlock(raw: [UInt8], utf8 name: String, crc: UInt32? = nil) -> [UInt8] {
    var data = ByteWriter()
    data.write(UInt8(1))
    data.write(crc ?? CRC32.checksum(raw))
    data.write(Array(name.utf8))
    var block = ByteWriter()
    ExtraField.append(id: ExtraFieldID.unicodePath, data: data.bytes, to: &block)
    return block.bytes
}

/// Entry names: UTF-8, CP437, Unicode Path.
@Suite struct NameTests {
    static let cp437Name: [UInt8] = [0x82, 0x74, 0x82, 0x2E, 0x74, 0x78, 0x74]  // "été.txt" in code page 437

    @Test func decodingRules() throws {
        let japanese = Array("日本語/ファイル.txt".utf8)
        let accented = Array("é.txt".utf8)
        let bytes = handmadeArchive([
            // Bit 11 set: UTF-8.
            HandmadeEntry(name: japanese, flags: GeneralPurposeFlag.utf8, data: [1]),
            // No flag, but valid UTF-8 (what Info-ZIP zip writes on Linux).
            HandmadeEntry(name: accented, data: [2]),
            // No flag, not UTF-8: code page 437.
            HandmadeEntry(name: Self.cp437Name, data: [3]),
            // A Unicode Path field whose CRC matches the raw name wins over the raw name.
            HandmadeEntry(name: [0x82, 0x2E, 0x74, 0x78, 0x74], data: [4],
                          centralExtra: unicodePathBlock(raw: [0x82, 0x2E, 0x74, 0x78, 0x74], utf8: "ê.txt")),
            // A stale Unicode Path field (CRC of another name) is ignored.
            HandmadeEntry(name: [0x81, 0x2E, 0x74, 0x78, 0x74], data: [5],
                          centralExtra: unicodePathBlock(raw: Array("other".utf8), utf8: "wrong.txt")),
            // Bit 11 set: the raw name is already Unicode, the field is not consulted.
            HandmadeEntry(name: Array("ñ.txt".utf8), flags: GeneralPurposeFlag.utf8, data: [6],
                          centralExtra: unicodePathBlock(raw: Array("ñ.txt".utf8), utf8: "ignored.txt")),
        ])
        let archive = try ZipArchive(source: MemorySource(bytes))
        #expect(archive.entries.map(\.name) == ["日本語/ファイル.txt", "é.txt", "été.txt", "ê.txt", "ü.txt", "ñ.txt"])
        #expect(archive.entries[2].rawName == Self.cp437Name)
        #expect(try archive.contents(of: archive.requireEntry(named: "ê.txt")) == [4])
        #expect(try archive.contents(of: archive.requireEntry(named: "été.txt")) == [3])
        #expect(archive.contentsOfDirectory("日本語") == ["ファイル.txt"])
        // The local header still has the raw name; the check compares raw bytes, not decoded text.
        #expect(try readAllEntries(archive).count == 6)
    }

    @Test func namesAreNeverNormalized() throws {
        let composed = "caf\u{E9}.txt", decomposed = "cafe\u{301}.txt"
        let bytes = handmadeArchive([
            HandmadeEntry(name: Array(composed.utf8), flags: GeneralPurposeFlag.utf8, data: [1]),
            HandmadeEntry(name: Array(decomposed.utf8), flags: GeneralPurposeFlag.utf8, data: [2]),
        ])
        let archive = try ZipArchive(source: MemorySource(bytes))
        #expect(archive.entries.map { Array($0.name.utf8) } == [Array(composed.utf8), Array(decomposed.utf8)])
        // Lookups are by exact bytes: each spelling finds its own entry.
        #expect(try archive.contents(of: archive.requireEntry(named: composed)) == [1])
        #expect(try archive.contents(of: archive.requireEntry(named: decomposed)) == [2])
        #expect(archive.contentsOfDirectory("")?.map { Array($0.utf8) } == [Array(composed.utf8), Array(decomposed.utf8)].sorted {
            $0.lexicographicallyPrecedes($1)
        })
    }

    @Test func namesFromPythonAndZip() throws {
        try ExternalTool.python3.require()
        try ExternalTool.zip.require()
        let directory = try TemporaryDirectory("names")
        let names = ["é.txt", "日本語.txt", "emoji 🎉.txt", "plain.txt"]
        for name in names { try directory.write("src/\(name)", text: name) }
        try shell("zip -q ../zip.zip *", in: directory.file("src"))
        try shell("""
            python3 -c "import zipfile, os; z = zipfile.ZipFile('../py.zip', 'w'); [z.write(n) for n in sorted(os.listdir('.'))]; z.close()"
            """, in: directory.file("src"))
        for (archiveName, flagged) in [("zip.zip", false), ("py.zip", true)] {
            let archive = try ZipArchive(path: directory.file(archiveName))
            #expect(Set(archive.entries.map(\.name)) == Set(names), "\(archiveName)")
            for name in names {
                let entry = try archive.requireEntry(named: name)
                #expect(try archive.contents(of: entry) == Array(name.utf8))
                let nonASCII = name.utf8.contains { $0 >= 0x80 }
                #expect((entry.flags & GeneralPurposeFlag.utf8 != 0) == (flagged && nonASCII), "\(archiveName) \(name)")
            }
        }
    }

    @Test func unzipInALocaleThatIsNotUTF8ReadsUTF8NamesWhateverTheLocalHeaderHolds() throws {
        try ExternalTool.unzip.require()
        let directory = try TemporaryDirectory("writer-names-c-locale")
        // Stored entries aligned (padding in the local header), a streamed entry of unknown size (room
        // reserved in the local header), and one with nothing extra; ASCII and UTF-8 names.
        let writer = try ZipWriter(path: directory.file("n.zip"), options: .deterministic(storedAlignment: 4096))
        try writer.addFile("日本語/plain.txt", contents: Array("deflated".utf8))
        try writer.addFile("日本語/aligned.bin", contents: [1, 2, 3], method: .stored)
        try writer.addFile("ascii-aligned.bin", contents: [4, 5], method: .stored)
        try writer.addFile("données/streamed.txt", from: MemoryStream(Array("streamed".utf8)), size: nil)
        try writer.finish(sync: false)
        for locale in ["C", "C.UTF-8"] {
            let tested = try run("unzip", ["-t", directory.file("n.zip")], environment: ["LANG": locale, "LC_ALL": locale])
            #expect(tested.status == 0, "LANG=\(locale): \(tested.stdout)\(tested.stderr)")
            #expect(!tested.stdout.contains("mismatching"), "LANG=\(locale): \(tested.stdout)")
        }
        let archive = try ZipArchive(path: directory.file("n.zip"))
        #expect(archive.entries.map(\.name) == ["日本語/plain.txt", "日本語/aligned.bin", "ascii-aligned.bin", "données/streamed.txt"])
        #expect(try archive.contents(of: archive.requireEntry(named: "données/streamed.txt")) == Array("streamed".utf8))
    }

    @Test func writerFlagsOnlyNonASCIINames() throws {
        try ExternalTool.unzip.require()
        let directory = try TemporaryDirectory("writer-names")
        let writer = try ZipWriter(path: directory.file("n.zip"), options: .deterministic())
        try writer.addFile("ascii.txt", contents: [1])
        try writer.addFile("ünï/cödé.txt", contents: [2])
        try writer.finish(sync: false)
        let archive = try ZipArchive(path: directory.file("n.zip"))
        #expect(archive.entries.map { $0.flags & GeneralPurposeFlag.utf8 != 0 } == [false, true])
        #expect(archive.contentsOfDirectory("ünï") == ["cödé.txt"])
        let listing = try shell("unzip -Z1 n.zip", in: directory.path)
        #expect(listing.stdout == "ascii.txt\nünï/cödé.txt\n")
    }
}
