import Foundation
import Testing
import TestSupport

/// End-to-end tests of `assetpack expand`: they run the built binary and check what a user sees — the exit
/// status, the stdout or stderr line, and the files on disk.
@Suite struct ExpandCLITests {
    let tool = builtProduct("assetpack")

    /// A tree of files: path → contents.
    typealias Files = [String: [UInt8]]

    static let tree: Files = {
        var random = SeededRandom(seed: 2024)
        var files: Files = [:]
        for index in 0..<24 { files["level\(index % 4)/chunk\(index).bin"] = random.bytes(2_000 + index * 500) }
        files["text/story.txt"] = random.text(120_000)
        files["readme.txt"] = Array("assets\n".utf8)
        return files
    }()

    // MARK: - Fixtures

    /// Writes `files` under `root`.
    static func write(_ files: Files, to root: String) throws {
        for (path, bytes) in files {
            let url = URL(fileURLWithPath: root + "/" + path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(bytes).write(to: url)
        }
    }

    /// The regular files under `root` (the `.assetpack` record at the top left out).
    static func read(_ root: String) -> Files? {
        guard let enumerator = FileManager.default.enumerator(atPath: root) else { return nil }
        var files: Files = [:]
        while let path = enumerator.nextObject() as? String {
            if path == ".assetpack" { enumerator.skipDescendants(); continue }
            if (enumerator.fileAttributes?[.type] as? FileAttributeType) == .typeRegular {
                files[path] = Array((try? Data(contentsOf: URL(fileURLWithPath: root + "/" + path))) ?? Data())
            }
        }
        return files
    }

    /// A short stand-in for a tree in failure messages: path → size and hash.
    static func digest(_ files: Files?) -> [String: String]? {
        files?.mapValues { "\($0.count) bytes, hash \($0.hashValue)" }
    }

    /// Writes a zip with Python's `zipfile` (another tool than ours): entries in order, no directory entries.
    static func pythonZip(_ path: String, _ entries: [(name: String, bytes: [UInt8], stored: Bool)]) throws {
        try ExternalTool.python3.require()
        let spec = entries.map { ["name": $0.name, "data": Data($0.bytes).base64EncodedString(), "stored": $0.stored ? "1" : ""] }
        let script = """
            import base64, json, sys, zipfile
            with zipfile.ZipFile(sys.argv[1], "w") as z:
                for e in json.load(sys.stdin):
                    info = zipfile.ZipInfo(e["name"], date_time=(2020, 1, 1, 0, 0, 0))
                    info.compress_type = zipfile.ZIP_STORED if e["stored"] else zipfile.ZIP_DEFLATED
                    z.writestr(info, base64.b64decode(e["data"]))
            """
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let result = try run("python3", ["-c", script, path], stdin: Array(try JSONEncoder().encode(spec)))
        guard result.status == 0 else { throw CLIError.tool("python3 zipfile failed: \(result.stderr)") }
    }

    /// The bytes of a zip written by ``pythonZip(_:_:)``.
    static func pythonZipBytes(_ entries: [(name: String, bytes: [UInt8], stored: Bool)], scratch: TemporaryDirectory) throws -> [UInt8] {
        let path = scratch.file("inner-\(UUID().uuidString).zip")
        try pythonZip(path, entries)
        return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    enum CLIError: Error { case tool(String) }

    func expand(_ arguments: [String], cwd: String? = nil, environment: [String: String]? = nil) throws -> CommandResult {
        try run(tool, ["expand"] + arguments, cwd: cwd, environment: environment)
    }

    // MARK: - Tests

    @Test func aPackedBundleExpandsAndASecondRunIsUpToDate() throws {
        let scratch = try TemporaryDirectory("cli-expand")
        try Self.write(Self.tree, to: scratch.file("src"))
        let built = try run(tool, ["build", scratch.file("src"), "-o", scratch.file("assets.bundle"), "--threshold", "4K"])
        #expect(built.status == 0, "\(built.stderr)")
        // BUNDLE defaults to ./assets.bundle.
        let first = try expand(["--to", "out/assets"], cwd: scratch.path)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.hasPrefix("expanded \(Self.tree.count) files"))
        #expect(first.stdout.contains("into \(scratch.file("out/assets"))"))
        #expect(Self.digest(Self.read(scratch.file("out/assets"))) == Self.digest(Self.tree))
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.file("out")) == ["assets"])

        let second = try expand([scratch.file("assets.bundle"), "--to", scratch.file("out/assets")])
        #expect(second.status == 0)
        #expect(second.stdout == "\(scratch.file("out/assets")) is up to date\n")
        #expect(second.stderr.isEmpty)
    }

    @Test func jsonSummaryAndQuiet() throws {
        let scratch = try TemporaryDirectory("cli-json")
        try Self.write(Self.tree, to: scratch.file("src"))
        let result = try expand([scratch.file("src"), "--to", scratch.file("out"), "--json", "--jobs", "3"])
        #expect(result.status == 0, "\(result.stderr)")
        let summary = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        #expect(summary?["files"] as? Int == Self.tree.count)
        #expect(summary?["bytes"] as? Int == Self.tree.values.reduce(0) { $0 + $1.count })
        #expect(summary?["upToDate"] as? Bool == false)
        #expect(summary?["seconds"] is Double)
        let again = try expand([scratch.file("src"), "--to", scratch.file("out"), "--json"])
        let repeated = try JSONSerialization.jsonObject(with: Data(again.stdout.utf8)) as? [String: Any]
        #expect(repeated?["upToDate"] as? Bool == true)
        let quiet = try expand([scratch.file("src"), "--to", scratch.file("out"), "--quiet"])
        #expect(quiet.status == 0 && quiet.stdout.isEmpty && quiet.stderr.isEmpty)
    }

    @Test func noSyncExpandsTheSameTreeAndAZipIsUpToDateByItsFingerprint() throws {
        let scratch = try TemporaryDirectory("cli-no-sync")
        try Self.write(Self.tree, to: scratch.file("src"))
        try Self.pythonZip(scratch.file("app.zip"), Self.tree.sorted { $0.key < $1.key }.map { ($0.key, $0.value, false) })
        let first = try expand([scratch.file("app.zip"), "--to", scratch.file("out"), "--no-sync"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(Self.digest(Self.read(scratch.file("out"))) == Self.digest(Self.tree))
        // The archive is known up to date from its central directory's fingerprint, with or without --no-sync.
        let second = try expand([scratch.file("app.zip"), "--to", scratch.file("out")])
        #expect(second.stdout == "\(scratch.file("out")) is up to date\n")
    }

    @Test func anAPKSubtreeExpandsWithItsStoredInnerZipUnzippedInPlace() throws {
        try ExternalTool.python3.require()
        let scratch = try TemporaryDirectory("cli-apk")
        var random = SeededRandom(seed: 5)
        let frog = random.bytes(30_000), lily = random.text(8_000), level = random.bytes(4_000), story = random.text(50_000)
        let photos = try Self.pythonZipBytes([("photos/frog.jpg", frog, true), ("photos/pond/lily.txt", lily, false)],
                                             scratch: scratch)
        try Self.pythonZip(scratch.file("app.apk"), [
            ("AndroidManifest.xml", Array("<manifest/>".utf8), false),
            ("assets/data/levels/one.bin", level, true),
            ("assets/data/text/story.txt", story, false),
            ("assets/data/binary/photos.zip", photos, true),
            ("assets/fonts/other.ttf", [1, 2, 3], false),
            ("res/raw/x.bin", [4], true),
        ])
        let result = try expand([scratch.file("app.apk"), "--root", "assets/data", "--to", scratch.file("assets")])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Self.read(scratch.file("assets")) == [
            "levels/one.bin": level, "text/story.txt": story,
            "binary/photos/frog.jpg": frog, "binary/photos/pond/lily.txt": lily,
        ])
        let kept = try expand([scratch.file("app.apk"), "--root", "assets/data", "--to", scratch.file("kept"), "--keep-zips"])
        #expect(kept.status == 0)
        #expect(Self.read(scratch.file("kept"))?["binary/photos.zip"] == photos)
    }

    @Test(arguments: ["folder", "packed bundle", "packed bundle, a window at a time", "zip, a window at a time"])
    func killedAtAnyPointTheNextRunFinishesTheExactTree(input: String) throws {
        let scratch = try TemporaryDirectory("cli-kill")
        try Self.write(Self.tree, to: scratch.file("tree"))
        if input.hasPrefix("zip") {
            // Reverse path order: each folder's entries in one run, as an archiver walking a tree writes them.
            try ExpansionFixtures.zip(at: scratch.file("src"), Self.tree.sorted { $0.key > $1.key }.map { ($0.key, $0.value, .deflate) })
        } else if input.hasPrefix("packed bundle") {
            let built = try run(tool, ["build", scratch.file("tree"), "-o", scratch.file("src"), "--threshold", "3K"])
            #expect(built.status == 0, "\(built.stderr)")
        } else {
            try FileManager.default.moveItem(atPath: scratch.file("tree"), toPath: scratch.file("src"))
        }
        try? FileManager.default.removeItem(atPath: scratch.file("tree"))
        let destination = scratch.file("assets")
        let staging = scratch.file(".assets.assetpack-staging")
        var points: [[String: String]] = [1, 2, 7, 13, 25].map { ["ASSETPACK_TEST_KILL_AFTER_FILES": String($0)] }
        points += [["ASSETPACK_TEST_KILL_AT": "committed"], ["ASSETPACK_TEST_KILL_AT": "switched"]]
        for var point in points {
            try? FileManager.default.removeItem(atPath: destination)
            if input.hasSuffix("a window at a time") { point["ASSETPACK_TEST_WINDOW_ITEMS"] = "3" }
            let killed = try expand([scratch.file("src"), "--to", destination, "--jobs", "1"], environment: point)
            #expect(killed.status == 128 + 9, "\(point): \(killed.stderr)")
            let hasRecord = FileManager.default.fileExists(atPath: destination + "/.assetpack/identity")
            if point["ASSETPACK_TEST_KILL_AT"] == "switched" {
                #expect(hasRecord && Self.digest(Self.read(destination)) == Self.digest(Self.tree), "\(point)")
            } else {
                #expect(!FileManager.default.fileExists(atPath: destination), "\(point): a partial tree is never visible")
                let committed = FileManager.default.fileExists(atPath: staging + "/.assetpack/identity")
                #expect(committed == (point["ASSETPACK_TEST_KILL_AT"] == "committed"), "\(point): the record marks only complete trees")
                if committed { #expect(Self.digest(Self.read(staging)) == Self.digest(Self.tree)) }
            }
            let resumed = try expand([scratch.file("src"), "--to", destination])
            #expect(resumed.status == 0, "\(point): \(resumed.stderr)")
            #expect(Self.digest(Self.read(destination)) == Self.digest(Self.tree), "\(point)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path).sorted() == ["assets", "src"], "\(point)")
        }
    }

    @Test func killedDuringAnUpgradeThePreviousVersionStaysComplete() throws {
        let scratch = try TemporaryDirectory("cli-kill-upgrade")
        try Self.write(Self.tree, to: scratch.file("v1"))
        var v2 = Self.tree
        v2["text/story.txt"] = Array("rewritten".utf8)
        for index in 1...8 { v2["level\(index % 4)/chunk\(index).bin"] = Array(repeating: UInt8(index), count: 3_000) }
        v2["level0/chunk0.bin"] = nil
        v2["new/added.txt"] = Array("added".utf8)
        try Self.write(v2, to: scratch.file("v2"))
        let destination = scratch.file("assets")
        #expect(try expand([scratch.file("v1"), "--to", destination]).status == 0)
        for files in [1, 2, 3] {  // each run resumes the previous one and writes this many more files
            let killed = try expand([scratch.file("v2"), "--to", destination],
                                    environment: ["ASSETPACK_TEST_KILL_AFTER_FILES": String(files)])
            #expect(killed.status == 137)
            #expect(Self.digest(Self.read(destination)) == Self.digest(Self.tree), "the previous version is still whole")
        }
        let finished = try expand([scratch.file("v2"), "--to", destination])
        #expect(finished.status == 0, "\(finished.stderr)")
        #expect(Self.digest(Self.read(destination)) == Self.digest(v2))
    }

    @Test func twoProcessesExpandingOneDestinationBothSucceed() throws {
        let scratch = try TemporaryDirectory("cli-two")
        try Self.write(Self.tree, to: scratch.file("src"))
        let destination = scratch.file("assets")
        let processes = (0..<2).map { _ in Process() }
        for process in processes {
            process.executableURL = URL(fileURLWithPath: tool)
            process.arguments = ["expand", scratch.file("src"), "--to", destination, "--quiet"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
        }
        for process in processes { try process.run() }
        for process in processes { process.waitUntilExit() }
        #expect(processes.map(\.terminationStatus) == [0, 0])
        #expect(Self.digest(Self.read(destination)) == Self.digest(Self.tree))
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path).sorted() == ["assets", "src"])
    }

    @Test func anUnsafeEntryFailsWithOneLineAndTheDestinationKeepsItsState() throws {
        try ExternalTool.python3.require()
        let scratch = try TemporaryDirectory("cli-unsafe")
        try Self.write(["ok.txt": Array("ok".utf8)], to: scratch.file("good"))
        let destination = scratch.file("assets")
        #expect(try expand([scratch.file("good"), "--to", destination]).status == 0)
        try Self.pythonZip(scratch.file("evil.zip"), [("fine.txt", [1], true), ("../evil.txt", [6, 6, 6], true)])
        let result = try expand([scratch.file("evil.zip"), "--to", destination])
        #expect(result.status == 77)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1)
        #expect(lines.first?.hasPrefix("assetpack: error: ") == true)
        #expect(result.stderr.contains("evil.zip") && result.stderr.contains("unsafe"))
        #expect(Self.read(destination) == ["ok.txt": Array("ok".utf8)])
        #expect(!FileManager.default.fileExists(atPath: scratch.file("evil.txt")))
    }

    @Test func aDamagedArchiveNamesTheFileAndTheReason() throws {
        try ExternalTool.python3.require()
        let scratch = try TemporaryDirectory("cli-damaged")
        let payload = Array(repeating: UInt8(ascii: "A"), count: 1_000)
        try Self.pythonZip(scratch.file("tree/data/pack.zip"), [("inside.bin", payload, true)])
        var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: scratch.file("tree/data/pack.zip"))))
        let start = try #require(bytes.indices.first { bytes[$0...].starts(with: payload.prefix(16)) })
        bytes[start + 500] ^= 0xFF  // same size, other contents: the CRC-32 no longer matches
        try Data(bytes).write(to: URL(fileURLWithPath: scratch.file("tree/data/pack.zip")))
        let result = try expand([scratch.file("tree"), "--to", scratch.file("assets")])
        #expect(result.status == 65)
        #expect(result.stderr.hasPrefix("assetpack: error: "))
        #expect(result.stderr.contains("data/pack.zip") && result.stderr.contains("inside.bin") && result.stderr.contains("CRC-32"))
        #expect(!FileManager.default.fileExists(atPath: scratch.file("assets")))
    }

    @Test func aMissingBundleIsAClearError() throws {
        let scratch = try TemporaryDirectory("cli-missing")
        let result = try expand(["--to", scratch.file("assets")], cwd: scratch.path)
        #expect(result.status == 66)
        #expect(result.stderr.contains("assets.bundle"))
    }
}
