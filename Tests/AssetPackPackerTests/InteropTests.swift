import AssetPack
import Foundation
import Testing
import TestSupport
@testable import AssetPackPacker

/// Other tools accept the bundle's archives.
@Suite struct InteropTests {
    static func bundle(_ dir: TemporaryDirectory) throws -> [String] {
        var random = SeededRandom(seed: 61)
        try dir.write("src/日本語/big.txt", random.text(1_200_000))
        try dir.write("src/noise.bin", random.bytes(1_100_000))
        try dir.write("src/run.sh", random.text(1_100_000))
        try chmod(dir.file("src/run.sh"), 0o755)
        try build(dir.file("src"), dir.file("out"))
        _ = try Packer().buildArchive(source: dir.file("src"), output: dir.file("all.zip"))
        return ["out/日本語/big.txt.zip", "out/noise.bin.zip", "out/run.sh.zip", "all.zip"].map(dir.file)
    }

    @Test func unzipTestsClean() throws {
        try ExternalTool.unzip.require()
        let dir = try TemporaryDirectory("unzip")
        for archive in try Self.bundle(dir) {
            let result = try run("unzip", ["-t", archive])
            #expect(result.status == 0, "\(archive): \(result.stdout) \(result.stderr)")
        }
    }

    @Test func pythonZipfileFindsNoBadEntry() throws {
        try ExternalTool.python3.require()
        let dir = try TemporaryDirectory("python")
        for archive in try Self.bundle(dir) {
            let script = "import sys, zipfile\nz = zipfile.ZipFile(sys.argv[1])\nassert z.testzip() is None\nprint(len(z.namelist()))"
            let result = try run("python3", ["-c", script, archive])
            #expect(result.status == 0, "\(archive): \(result.stderr)")
        }
    }

    @Test func jarListsTheEntries() throws {
        try ExternalTool.jar.require()
        let dir = try TemporaryDirectory("jar")
        let archives = try Self.bundle(dir)
        let single = try run("jar", ["tf", archives[0]])
        #expect(single.status == 0 && single.stdout == "big.txt\n")
        let all = try run("jar", ["tf", archives[3]])
        #expect(all.status == 0 && all.stdout.contains("日本語/big.txt") && all.stdout.contains("assetpack-meta/manifest.json"))
    }
}
