import Foundation
import Testing
import TestSupport

/// `assetpack list` and `assetpack verify` end to end, on archives made by Info-ZIP `zip`.
@Suite struct ListVerifyCLITests {
    let tool = builtProduct("assetpack")

    /// An archive with a deflated text file, a stored file and a directory; returns its path.
    func sampleArchive(_ dir: TemporaryDirectory) throws -> String {
        try ExternalTool.zip.require()
        var random = SeededRandom(seed: 5)
        try dir.write("in/docs/words.txt", random.text(200_000))
        try dir.write("in/raw.bin", random.bytes(5_000))
        let result = try run("/bin/sh", ["-c", "cd in && zip -q -r ../a.zip docs && zip -q -0 ../a.zip raw.bin"], cwd: dir.path)
        #expect(result.status == 0, "\(result.stderr)")
        return dir.file("a.zip")
    }

    @Test func listShowsEveryEntryWithSizeMethodAndCRC() throws {
        let dir = try TemporaryDirectory("cli-list")
        let archive = try sampleArchive(dir)
        let result = try run(tool, ["list", archive])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 5)  // header, 3 entries, total
        let words = try #require(lines.first { $0.hasSuffix("docs/words.txt") })
        #expect(words.contains("200000") && words.contains("deflate"))
        let raw = try #require(lines.first { $0.hasSuffix("raw.bin") })
        #expect(raw.contains("5000") && raw.contains("stored"))
        #expect(lines.last?.hasSuffix("3 entries") == true)
    }

    /// Names are the archive's to choose: printed raw, an escape sequence would clear the screen or retitle
    /// the terminal, and a line feed would fake an entry of its own.
    @Test func listPrintsControlCharactersOfNamesEscaped() throws {
        let dir = try TemporaryDirectory("cli-list-controls")
        let names = ["EVIL\u{1B}[2J\u{1B}]0;pwned\u{07}\rFAKE.txt", "line1\nfake_entry.txt", "c1\u{9B}31m.txt"]
        var entries = names.map { RawZip.file(raw: Array($0.utf8), Array("x".utf8)) }
        entries.append(RawZip.Entry(name: Array("odd-method.bin".utf8), data: [1], method: 25_856))
        try writeBytes(RawZip(entries).bytes, to: dir.file("names.zip"))
        let result = try run(tool, ["list", dir.file("names.zip")])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stdout.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\n") || (0x7F...0x9F).contains($0.value) })
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 6, "a header, four entries, the total: \(lines)")
        #expect(lines.contains { $0.hasSuffix(#"EVIL\x1b[2J\x1b]0;pwned\x07\rFAKE.txt"#) })
        #expect(lines.contains { $0.hasSuffix(#"line1\nfake_entry.txt"#) })
        #expect(lines.contains { $0.contains("unknown (25856)") && $0.hasSuffix("odd-method.bin") }, "the method is not cut short")
    }

    /// `list --json` writes its rows by hand (a million of them through `JSONEncoder` took 14 s): names with
    /// quotes, backslashes, control characters and non-ASCII come back exactly through a JSON parser, and the
    /// line is what the encoder wrote (sorted keys, slashes as they are).
    @Test func listJSONEscapesEveryNameAJSONParserReadsBack() throws {
        let dir = try TemporaryDirectory("cli-list-json-names")
        let names = ["q\"uote/b\\ack.txt", "tab\there\u{01}\u{1F}\u{7F}.txt", "line\nfeed\r\u{08}\u{0C}.txt", "é/ü/日本.txt", "a/b/c.txt"]
        try writeBytes(RawZip(names.map { RawZip.file(raw: Array($0.utf8), Array("x".utf8)) }).bytes, to: dir.file("n.zip"))
        let result = try run(tool, ["list", "--json", dir.file("n.zip")])
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdoutBytes)) as? [String: Any])
        let rows = try #require(object["entries"] as? [[String: Any]])
        #expect(rows.map { $0["name"] as? String } == names)
        #expect(result.stdout.contains(#""name":"q\"uote/b\\ack.txt","size":1}"#))
        #expect(result.stdout.contains("tab\\there\\u0001\\u001f\u{7F}.txt"))
        #expect(result.stdout.contains(#"line\nfeed\r\b\f.txt"#))
        #expect(result.stdout.contains(#"{"compressedSize":1,"crc32":"8cdc1683","encrypted":false,"kind":"file","method":"stored","#))
    }

    @Test func listJSONMatchesPythonsView() throws {
        try ExternalTool.python3.require()
        let dir = try TemporaryDirectory("cli-list-json")
        let archive = try sampleArchive(dir)
        let result = try run(tool, ["list", "--json", archive])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.split(separator: "\n").count == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdoutBytes)) as? [String: Any])
        #expect(object["schema"] as? Int == 1 && object["command"] as? String == "list" && object["ok"] as? Bool == true)
        #expect(object["archive"] as? String == archive)
        let rows = try #require(object["entries"] as? [[String: Any]])
        let python = try run("python3", ["-c", """
            import zipfile, sys
            for i in zipfile.ZipFile(sys.argv[1]).infolist():
                print(f"{i.filename}\\t{i.file_size}\\t{i.compress_size}\\t{i.CRC:08x}")
            """, archive])
        let expected = python.stdout.split(separator: "\n").map(String.init)
        let actual = rows.map { "\($0["name"]!)\t\($0["size"]!)\t\($0["compressedSize"]!)\t\($0["crc32"]!)" }
        #expect(actual == expected)
        #expect(rows.first { $0["name"] as? String == "docs/" }?["kind"] as? String == "directory")
    }

    @Test func verifyAcceptsAGoodArchive() throws {
        let dir = try TemporaryDirectory("cli-verify")
        let archive = try sampleArchive(dir)
        let result = try run(tool, ["verify", archive])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "\(archive): OK, 3 entries, 205000 bytes verified\n")
        #expect(try run(tool, ["verify", "--quiet", archive]).stdout.isEmpty)
        let json = try run(tool, ["verify", archive, "--json"])
        #expect(json.status == 0)
        #expect(json.stdout == #"{"archive":"\#(archive)","bytes":205000,"command":"verify","entries":3,"ok":true,"schema":1}"# + "\n")
    }

    /// A missing input is `not-found` (exit status 66) for every command that reads one, with the path absolute.
    @Test func aMissingInputIsNotFoundForEveryCommand() throws {
        let dir = try TemporaryDirectory("cli-missing")
        for command in ["list", "verify", "check", "expand"] {
            let extra = command == "expand" ? ["--to", "out"] : []
            let result = try run(tool, [command, "nope.zip", "--json"] + extra, cwd: dir.path)
            #expect(result.status == 66, "\(command): \(result.stdout)")
            let line = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
            let error = try #require(line["error"] as? [String: Any])
            #expect(error["code"] as? String == "not-found" && error["class"] as? String == "not-found", "\(command)")
            #expect(error["path"] as? String == dir.file("nope.zip"), "\(command)")
        }
    }

    @Test func verifyNamesTheFirstBadEntry() throws {
        let dir = try TemporaryDirectory("cli-verify-bad")
        let archive = try sampleArchive(dir)
        // Flip one byte in the middle of the stored entry's data: only its CRC-32 can notice.
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: archive)))
        let marker = Array("raw.bin".utf8)
        let signature: [UInt8] = [0x50, 0x4b, 3, 4]
        func isRawHeader(_ at: Int) -> Bool {
            Array(bytes[at..<(at + 4)]) == signature && Array(bytes[(at + 30)..<(at + 37)]) == marker
        }
        let header = try #require((0..<(bytes.count - 40)).first(where: isRawHeader))
        bytes[header + 30 + marker.count + 28 + 2_500] ^= 0xFF  // 28: Info-ZIP's "UT" + "ux" extra fields
        try Data(bytes).write(to: URL(fileURLWithPath: archive))
        let result = try run(tool, ["verify", archive])
        #expect(result.status == 65)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(result.stderr.contains(archive) && result.stderr.contains("\"raw.bin\"") && result.stderr.contains("CRC-32"))
    }

    @Test func notAZipIsOneClearLine() throws {
        let dir = try TemporaryDirectory("cli-not-zip")
        let path = try dir.write("notes.txt", text: "just text, no zip here\n")
        for command in ["list", "verify"] {
            let result = try run(tool, [command, path])
            #expect(result.status == 65)
            #expect(result.stderr == "assetpack: error: \(path): not a zip archive: no end of central directory record in the last 23 bytes\n")
        }
        let missing = try run(tool, ["verify", dir.file("missing.zip")])
        #expect(missing.status == 66)
        #expect(missing.stderr.contains(dir.file("missing.zip")) && missing.stderr.contains("no such file or folder"))
    }
}
