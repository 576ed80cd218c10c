import AssetPack
import Foundation
import Testing
import TestSupport

/// `assetpack list` and `assetpack verify` given a bundle FOLDER (built by `assetpack build`): the files
/// its manifest lists with how each is stored, the entries of its packed archives, and verification of
/// every file against the manifest; exact output.
@Suite struct BundleListVerifyCLITests {
    let tool = builtProduct("assetpack")

    static let text = Array("hello, assets\n".utf8)
    static let model: [UInt8] = { var random = SeededRandom(seed: 33); return random.bytes(1_300_000) }()
    static let words: [UInt8] = { var random = SeededRandom(seed: 34); return random.text(5 << 20) }()

    /// Builds `b.bundle` in `dir` from a small file, a random 1.3 MB file (packed, stored in its zip), a
    /// 5 MiB text (packed, deflated in two blocks) and an empty folder.
    func bundle(_ dir: TemporaryDirectory) throws {
        try dir.write("src/a.txt", Self.text)
        try dir.write("src/big/model.bin", Self.model)
        try dir.write("src/big/words.txt", Self.words)
        try FileManager.default.createDirectory(atPath: dir.file("src/empty"), withIntermediateDirectories: true)
        let built = try run(tool, ["build", "src", "-o", "b.bundle", "-q", "--pack-limit", "0"], cwd: dir.path)
        #expect(built.status == 0, "\(built.stderr)")
    }

    /// The compressed size the manifest records for `path`'s packed entry.
    func compressedSize(_ path: String, in manifest: String) throws -> Int {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: manifest))) as? [String: Any])
        let entries = try #require(object["entries"] as? [[String: Any]])
        let storage = try #require(entries.first { $0["path"] as? String == path }?["storage"] as? [String: Any])
        return try #require(storage["compressedSize"] as? Int)
    }

    /// The number of chunks the manifest records for `path`'s packed entry.
    func chunkCount(_ path: String, in manifest: String) throws -> Int {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: manifest))) as? [String: Any])
        let entries = try #require(object["entries"] as? [[String: Any]])
        let storage = try #require(entries.first { $0["path"] as? String == path }?["storage"] as? [String: Any])
        #expect(storage["chunking"] as? String == ContentChunking.standard.name)
        return try #require(storage["blocks"] as? [Any]).count
    }

    func crc(_ bytes: [UInt8]) -> String { String(format: "%08x", RawZip.crc32(of: bytes)) }

    func padded(_ value: Int, _ width: Int) -> String { String(repeating: " ", count: max(0, width - String(value).count)) + String(value) }

    @Test func listShowsEachFileHowItIsStoredAndThePackedArchivesEntries() throws {
        let dir = try TemporaryDirectory("cli-list-bundle")
        try bundle(dir)
        let manifest = dir.file("b.bundle/assetpack-meta/manifest.json")
        let words = try compressedSize("big/words.txt", in: manifest)
        let (modelChunks, wordChunks) = (try chunkCount("big/model.bin", in: manifest), try chunkCount("big/words.txt", in: manifest))
        #expect(modelChunks > 4 && wordChunks > 20, "cut into chunks of about 64 KiB")
        let result = try run(tool, ["list", "b.bundle"], cwd: dir.path)
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result.stderr)")
        #expect(result.stdout == """
            b.bundle: 3 files, 2 folders, 2 packed archives (assetpack-meta/manifest.json)
                Length  CRC-32    Name           Stored
                    14  \(crc(Self.text))  a.txt          plain
               1300000  \(crc(Self.model))  big/model.bin  packed in big/model.bin.zip as model.bin, stored, \(modelChunks) chunks
               5242880  \(crc(Self.words))  big/words.txt  packed in big/words.txt.zip as words.txt, deflate, \(wordChunks) chunks
               6542894            3 files

            big/model.bin.zip:
                Length   Compressed  Method        CRC-32    Name
               1300000      1300000  stored (0)    \(crc(Self.model))  model.bin
               1300000                                         1 entries

            big/words.txt.zip:
                Length   Compressed  Method        CRC-32    Name
               5242880  \(padded(words, 11))  deflate (8)   \(crc(Self.words))  words.txt
               5242880                                         1 entries

            """)
    }

    @Test func listJSONOfABundleIsOneObject() throws {
        let dir = try TemporaryDirectory("cli-list-bundle-json")
        try bundle(dir)
        let result = try run(tool, ["list", "--json", "b.bundle"], cwd: dir.path)
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdoutBytes)) as? [String: Any])
        #expect(result.stdout.split(separator: "\n").count == 1 && object["schema"] as? Int == 1 && object["command"] as? String == "list")
        #expect(object["bundle"] as? String == dir.file("b.bundle") && object["manifest"] as? String == "assetpack-meta/manifest.json")
        #expect(object["folders"] as? [String] == ["big", "empty"])
        let files = try #require(object["files"] as? [[String: Any]])
        #expect(files.map { $0["path"] as? String } == ["a.txt", "big/model.bin", "big/words.txt"])
        #expect(files[0]["storage"] as? String == "plain" && files[0]["file"] as? String == "a.txt" && files[0]["crc32"] as? String == crc(Self.text))
        #expect(files[2]["storage"] as? String == "packed" && files[2]["file"] as? String == "big/words.txt.zip")
        #expect(files[2]["entry"] as? String == "words.txt" && files[2]["method"] as? String == "deflate" && (files[2]["blocks"] as? Int ?? 0) > 20)
        #expect(files[2]["chunking"] as? String == ContentChunking.standard.name)
        let archives = try #require(object["archives"] as? [[String: Any]])
        #expect(archives.map { $0["path"] as? String } == ["big/model.bin.zip", "big/words.txt.zip"])
        #expect((archives[1]["entries"] as? [[String: Any]])?.first?["name"] as? String == "words.txt")
    }

    @Test func verifyChecksEveryFileAndEveryPackedEntry() throws {
        let dir = try TemporaryDirectory("cli-verify-bundle")
        try bundle(dir)
        let result = try run(tool, ["verify", "b.bundle"], cwd: dir.path)
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result.stderr)")
        #expect(result.stdout == "b.bundle: OK, 3 files, 6542894 bytes and 2 packed archives (2 entries) verified "
                + "against assetpack-meta/manifest.json\n")
        #expect(try run(tool, ["verify", "-q", "b.bundle"], cwd: dir.path).stdout.isEmpty)
        // A folder whose manifest is under `.assetpack` (an install's record folder) is no bundle.
        try FileManager.default.moveItem(atPath: dir.file("b.bundle/assetpack-meta"), toPath: dir.file("b.bundle/.assetpack"))
        let moved = try run(tool, ["verify", "b.bundle"], cwd: dir.path)
        #expect(moved.status != 0 && moved.stdout.isEmpty)
        #expect(moved.stderr.contains("without a bundle manifest (assetpack-meta/manifest.json)"), "\(moved.stderr)")
    }

    @Test func verifyNamesTheFirstBadFile() throws {
        let dir = try TemporaryDirectory("cli-verify-bundle-bad")
        try bundle(dir)
        var changed = Self.text
        changed[0] ^= 0x20
        try Data(changed).write(to: URL(fileURLWithPath: dir.file("b.bundle/a.txt")))
        let plain = try run(tool, ["verify", "b.bundle"], cwd: dir.path)
        #expect(plain.status == 65 && plain.stdout.isEmpty)
        #expect(plain.stderr == "assetpack: error: b.bundle: a.txt: CRC-32 mismatch: expected \(crc(Self.text)) (recorded in the "
                + "manifest), data has \(crc(changed))\n")

        try Data(Self.text).write(to: URL(fileURLWithPath: dir.file("b.bundle/a.txt")))
        var archive = try [UInt8](Data(contentsOf: URL(fileURLWithPath: dir.file("b.bundle/big/model.bin.zip"))))
        let dataStart = 30 + Int(archive[26]) + Int(archive[27]) << 8 + Int(archive[28]) + Int(archive[29]) << 8
        archive[dataStart + 1_000] ^= 0xFF
        try Data(archive).write(to: URL(fileURLWithPath: dir.file("b.bundle/big/model.bin.zip")))
        var damaged = Self.model
        damaged[1_000] ^= 0xFF
        let packed = try run(tool, ["verify", "b.bundle"], cwd: dir.path)
        #expect(packed.status == 65 && packed.stdout.isEmpty)
        #expect(packed.stderr == "assetpack: error: b.bundle/big/model.bin.zip: entry \"model.bin\": CRC-32 mismatch: expected "
                + "\(crc(Self.model)) (declared in the central directory), data has \(crc(damaged))\n")
    }

    /// `list` and `list --json` read the manifest as it streams; one laid out by another tool (pretty-printed
    /// here), which the reader takes whole, lists the same, byte for byte.
    @Test func aManifestLaidOutByAnotherToolListsTheSame() throws {
        let dir = try TemporaryDirectory("cli-list-relaid")
        try bundle(dir)
        let streamed = try run(tool, ["list", "b.bundle"], cwd: dir.path)
        #expect(streamed.status == 0 && streamed.stdout.hasPrefix("b.bundle: 3 files, 2 folders, 2 packed archives"), "\(streamed.stderr)")
        let streamedJSON = try run(tool, ["list", "--json", "b.bundle"], cwd: dir.path)
        #expect(streamedJSON.status == 0 && streamedJSON.stdout.contains("\"folders\":[\"big\",\"empty\"]"), "\(streamedJSON.stdout)")
        let path = dir.file("b.bundle/assetpack-meta/manifest.json")
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path)))
        try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted]).write(to: URL(fileURLWithPath: path))
        let whole = try run(tool, ["list", "b.bundle"], cwd: dir.path)
        #expect(whole.status == 0 && whole.stdout == streamed.stdout, "\(whole.stderr)")
        let wholeJSON = try run(tool, ["list", "--json", "b.bundle"], cwd: dir.path)
        #expect(wholeJSON.status == 0 && wholeJSON.stdout == streamedJSON.stdout, "\(wholeJSON.stdout)")
    }

    /// The folder exists, so it is not "not found": it is the wrong kind of input for these commands, a usage
    /// error (64) as `check` of a folder is, and both say the same.
    @Test func aFolderWithoutAManifestIsOneClearLine() throws {
        let dir = try TemporaryDirectory("cli-bundle-none")
        try dir.write("plain/a.txt", Self.text)
        for command in ["list", "verify"] {
            let result = try run(tool, [command, "plain"], cwd: dir.path)
            #expect(result.status == 64 && result.stdout.isEmpty)
            #expect(result.stderr == "assetpack: error: plain: is a folder without a bundle manifest (assetpack-meta/manifest.json); "
                    + "\(command) reads a bundle folder or a zip (assetpack expand takes any folder)\n")
        }
    }
}
