import Foundation
import Testing
import TestSupport
import AssetPack

/// `assetpack build` end to end: the built binary, its exit status, what it prints, and the files it leaves.
@Suite struct BuildCLITests {
    let tool = builtProduct("assetpack")

    func sourceTree(_ dir: TemporaryDirectory) throws -> String {
        var random = SeededRandom(seed: 71)
        try dir.write("src/dictionary/words.txt", random.text(1_100_000))
        try dir.write("src/strings/ja.txt", text: "こんにちは")
        try FileManager.default.createDirectory(atPath: dir.file("src/empty"), withIntermediateDirectories: true)
        return dir.file("src")
    }

    @Test func smallFilesGoToPackArchivesByDefaultAndExpandBack() throws {
        let dir = try TemporaryDirectory("cli-build-packs")
        let src = try sourceTree(dir)
        let result = try run(tool, ["build", src, "-o", dir.file("out")])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("2 files, 3 folders; 2 packed (1 stored, 0 reused)"))
        #expect(FileManager.default.fileExists(atPath: dir.file("out/assetpack-meta/packs/1.zip")))
        #expect(!FileManager.default.fileExists(atPath: dir.file("out/strings/ja.txt")))
        let verified = try run(tool, ["verify", dir.file("out")])
        #expect(verified.status == 0, "\(verified.stdout)\(verified.stderr)")
        let expanded = try run(tool, ["expand", dir.file("out"), "--to", dir.file("back"), "-q"])
        #expect(expanded.status == 0, "\(expanded.stderr)")
        #expect(try snapshot(dir.file("back")).filter { !$0.key.hasPrefix(".") } == snapshot(src))
    }

    @Test func theSummaryCountsInWordsAndLeavesOutAnAbsurdShare() throws {
        let dir = try TemporaryDirectory("cli-build-words")
        try dir.write("src/one.txt", text: "x\n")
        let folder = try run(tool, ["build", "src", "-o", "out"], cwd: dir.path)
        let archive = try run(tool, ["build", "src", "--archive", "out.zip"], cwd: dir.path)
        #expect(folder.stdout.split(separator: "\n").dropFirst().first == "  1 file, 0 folders; 1 packed (1 stored, 0 reused)")
        #expect(archive.stdout.split(separator: "\n").dropFirst().first == "  1 file, 0 folders")
        for result in [folder, archive] {
            #expect(result.status == 0 && !result.stdout.contains("%"), "\(result.stdout)")
        }
    }

    @Test func buildsABundleFolder() throws {
        let dir = try TemporaryDirectory("cli-build")
        let src = try sourceTree(dir)
        let result = try run(tool, ["build", src, "-o", dir.file("out"), "--pack-limit", "0"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("built \(dir.file("out")) from \(src)"))
        #expect(result.stdout.contains("2 files, 3 folders; 1 packed (0 stored, 0 reused)"))
        #expect(result.stderr.isEmpty)
        for path in ["out/dictionary/words.txt.zip", "out/strings/ja.txt", "out/empty", "out/assetpack-meta/manifest.json",
                     "out/assetpack-meta/identity"] {
            #expect(FileManager.default.fileExists(atPath: dir.file(path)), "\(path)")
        }
        #expect(!FileManager.default.fileExists(atPath: dir.file("out/dictionary/words.txt")))
    }

    @Test func chunkSizeSetsTheAverageOfTheContentDefinedChunks() throws {
        let dir = try TemporaryDirectory("cli-build-chunks")
        let src = try sourceTree(dir)
        func chunks(_ arguments: [String]) throws -> (name: String?, count: Int) {
            let result = try run(tool, ["build", src, "-o", dir.file("out-\(arguments.count)"), "-q"] + arguments)
            #expect(result.status == 0, "\(result.stderr)")
            let manifest = try readManifest(dir.file("out-\(arguments.count)"))
            let storage = try #require(manifest.entries.first { $0.path == "dictionary/words.txt" }?.storage)
            return (storage.chunking, storage.blocks?.count ?? 0)
        }
        let standard = try chunks([]), small = try chunks(["--chunk-size", "16K"])
        #expect(standard.name == "gear/65536" && small.name == "gear/16384")
        #expect(small.count > 2 * standard.count && standard.count > 8, "\(small.count) chunks of 16K, \(standard.count) of 64K")
        for bad in ["48K", "2K", "32M", "0", "big"] {
            let refused = try run(tool, ["build", src, "-o", dir.file("bad"), "--chunk-size", bad])
            #expect(refused.status == 64 && refused.stderr.contains("--chunk-size \(bad) is not a power of two"), "\(bad): \(refused.stderr)")
        }
    }

    @Test func aBuildOverThePreviousBundleWritesPatchesUnlessToldNot() throws {
        let dir = try TemporaryDirectory("cli-build-patches")
        let src = try sourceTree(dir)
        let words = src + "/dictionary/words.txt"
        var bytes = try fileBytes(words)
        func patches(_ arguments: [String]) throws -> BundleManifest.Storage.Patches? {
            bytes[bytes.count / 2] ^= 0x20
            try Data(bytes).write(to: URL(fileURLWithPath: words))
            let result = try run(tool, ["build", src, "-o", dir.file("out"), "-q"] + arguments)
            #expect(result.status == 0, "\(result.stderr)")
            return try readManifest(dir.file("out")).entries.first { $0.path == "dictionary/words.txt" }?.storage?.patches
        }
        #expect(try patches([]) == nil, "a first build has nothing to patch from")
        let written = try #require(try patches([]))
        #expect(written.runs.count == 1 && FileManager.default.fileExists(atPath: dir.file("out/" + written.file)))
        #expect(try patches(["--no-patches"]) == nil)
        #expect(!FileManager.default.fileExists(atPath: dir.file("out/assetpack-meta/patches")), "none left behind either")
        let refused = try run(tool, ["build", src, "--archive", dir.file("x.zip"), "--no-patches"])
        #expect(refused.status == 64 && refused.stderr.contains("--no-patches"), "\(refused.stderr)")
    }

    @Test func defaultOutputIsAssetsBundleInTheCurrentDirectory() throws {
        let dir = try TemporaryDirectory("cli-default")
        _ = try sourceTree(dir)
        let result = try run(tool, ["build", "src"], cwd: dir.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("built assets.bundle from src"))
        #expect(FileManager.default.fileExists(atPath: dir.file("assets.bundle/assetpack-meta/manifest.json")))
    }

    @Test func jsonSummaryParsesAndCountsReuse() throws {
        let dir = try TemporaryDirectory("cli-json")
        let src = try sourceTree(dir)
        _ = try run(tool, ["build", src, "-o", dir.file("out"), "--quiet", "--pack-limit", "0"])
        let result = try run(tool, ["build", src, "-o", dir.file("out"), "--json", "--pack-limit", "0"])
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdoutBytes)) as? [String: Any])
        #expect(object["files"] as? Int == 2)
        #expect(object["directories"] as? Int == 3)
        #expect(object["packed"] as? Int == 1)
        #expect(object["reused"] as? Int == 1)
        #expect(object["bytesIn"] as? Int == 1_100_000 + 15)
        #expect((object["ratio"] as? Double).map { $0 > 0 && $0 < 1 } == true)
        #expect(object["form"] as? String == "folder")
        #expect((object["identity"] as? String)?.count == 64)
    }

    @Test func quietPrintsNothing() throws {
        let dir = try TemporaryDirectory("cli-quiet")
        let result = try run(tool, ["build", try sourceTree(dir), "-o", dir.file("out"), "-q"])
        #expect(result.status == 0 && result.stdout.isEmpty && result.stderr.isEmpty)
    }

    @Test func missingSourceFailsWithOneLineNamingIt() throws {
        let dir = try TemporaryDirectory("cli-missing")
        let missing = dir.file("no-such-folder")
        let result = try run(tool, ["build", missing, "-o", dir.file("out")])
        #expect(result.status != 0)
        #expect(result.stdout.isEmpty)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1)
        #expect(lines.first?.contains(missing) == true)
        #expect(!FileManager.default.fileExists(atPath: dir.file("out")))
    }

    @Test func outputInsideSourceFailsWithOneLine() throws {
        let dir = try TemporaryDirectory("cli-inside")
        let src = try sourceTree(dir)
        let result = try run(tool, ["build", src, "-o", src + "/bundle"])
        #expect(result.status != 0)
        #expect(result.stderr.split(separator: "\n").count == 1 && result.stderr.contains("inside the source"))
    }

    @Test func badOptionsAreRejected() throws {
        let dir = try TemporaryDirectory("cli-options")
        let src = try sourceTree(dir)
        for arguments in [["--threshold", "lots"], ["--level", "12"], ["--pack-level", "10"], ["-o", dir.file("a"), "--archive", dir.file("b.zip")],
                          ["--jobs", "0"]] {
            let result = try run(tool, ["build", src] + arguments)
            #expect(result.status != 0, "\(arguments)")
            #expect(!result.stderr.isEmpty)
        }
    }

    @Test func thresholdAndArchiveOptions() throws {
        let dir = try TemporaryDirectory("cli-archive")
        let src = try sourceTree(dir)
        let folder = try run(tool, ["build", src, "-o", dir.file("out"), "--threshold", "4K", "--level", "9", "--json"])
        #expect(folder.status == 0, "\(folder.stderr)")
        let path = dir.file("out/assetpack-meta/manifest.json")
        let manifest = try BundleManifest.read(bytes: Array(try Data(contentsOf: URL(fileURLWithPath: path))), origin: path)
        #expect(manifest.threshold == 4096)
        #expect(manifest.packing?.hasPrefix("deflate 9;") == true)
        let archive = try run(tool, ["build", src, "--archive", dir.file("all.zip")])
        #expect(archive.status == 0, "\(archive.stderr)")
        #expect(archive.stdout.hasPrefix("built \(dir.file("all.zip"))"))
        try ExternalTool.unzip.require()
        let listing = try run("unzip", ["-l", dir.file("all.zip")])
        #expect(listing.stdout.contains("empty/") && listing.stdout.contains("assetpack-meta/manifest.json"))
    }

    @Test func jobsDoNotChangeTheBytes() throws {
        let dir = try TemporaryDirectory("cli-jobs")
        var random = SeededRandom(seed: 72)
        try dir.write("src/big/model.txt", random.text(9_000_000))
        try dir.write("src/small.txt", random.text(20_000))
        for jobs in ["1", "3"] {
            let folder = try run(tool, ["build", dir.file("src"), "-o", dir.file("out\(jobs)"), "--jobs", jobs, "-q"])
            #expect(folder.status == 0, "\(folder.stderr)")
            let archive = try run(tool, ["build", dir.file("src"), "--archive", dir.file("all\(jobs).zip"), "--jobs", jobs, "-q"])
            #expect(archive.status == 0, "\(archive.stderr)")
        }
        for path in ["out1/big/model.txt.zip", "out1/assetpack-meta/manifest.json", "all1.zip"] {
            let other = path.replacingOccurrences(of: "1", with: "3")
            #expect(FileManager.default.contentsEqual(atPath: dir.file(path), andPath: dir.file(other)), "\(path)")
        }
        let manifest = try String(contentsOfFile: dir.file("out1/assetpack-meta/manifest.json"), encoding: .utf8)
        #expect(manifest.contains("\"blocks\""))
    }

    @Test func sourceDateEpochSetsTheArchiveTimestamps() throws {
        try ExternalTool.python3.require()
        let dir = try TemporaryDirectory("cli-epoch")
        let src = try sourceTree(dir)
        let script = "import sys, zipfile\nprint(zipfile.ZipFile(sys.argv[1]).infolist()[0].date_time)"
        func stamp(_ epoch: String?, _ name: String) throws -> String {
            let environment = epoch.map { ["SOURCE_DATE_EPOCH": $0] } ?? [:]
            let built = try run(tool, ["build", src, "-o", dir.file(name), "-q"], environment: environment)
            #expect(built.status == 0, "\(built.stderr)")
            return try run("python3", ["-c", script, dir.file("\(name)/dictionary/words.txt.zip")]).stdout
        }
        #expect(try stamp("1700000000", "a") == "(2023, 11, 14, 22, 13, 20)\n")
        #expect(try stamp("1700000000", "b") == stamp("1700000000", "c"))
        #expect(try stamp("0", "d") == "(1980, 1, 1, 0, 0, 0)\n")
    }
}
