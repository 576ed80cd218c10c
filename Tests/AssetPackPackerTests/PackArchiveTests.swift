import AssetPack
import AssetPackZip
import Foundation
import Testing
import TestSupport
@testable import AssetPackPacker

/// Small files gathered into pack archives (the default layout): they round-trip, other tools read the
/// archives, the packed-bundle view lists and opens every file, rebuilds and upgrades reuse what did not
/// change, and a pack archive that lies is caught.
@Suite struct PackArchiveTests {
    /// 3 folders of 40 small files (text, some empty, one executable), a large file, a zip and a file
    /// just over the member limit.
    static func tree(_ dir: TemporaryDirectory) throws -> String {
        var random = SeededRandom(seed: 121)
        for folder in ["a", "b/deeper", "日本語"] {
            for number in 0..<40 {
                try dir.write("src/\(folder)/f\(number).json", number % 10 == 0 ? [] : random.text(100 + number * 97))
            }
        }
        try chmod(dir.file("src/a/f1.json"), 0o755)
        try dir.write("src/noise-small.bin", random.bytes(3_000))
        try dir.write("src/big.txt", random.text(1_200_000))
        try dir.write("src/over-limit.txt", random.text(70_000))
        try dir.write("src/inner.zip", random.bytes(500))
        return dir.file("src")
    }

    @discardableResult
    static func buildDefault(_ source: String, _ output: String, packSize: UInt64 = 1 << 20, packLevel: Int = 0) throws -> BuildSummary {
        var rules = PackingRules()
        rules.packSize = packSize
        rules.packLevel = packLevel
        return try Packer(options: BuildOptions(rules: rules)).build(source: source, output: output)
    }

    static func packs(_ bundle: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: bundle + "/" + PackGrouping.folder).sorted()
            .map { bundle + "/" + PackGrouping.folder + "/" + $0 }
    }

    /// The error installing `bundle` into `destination` ends with.
    static func installError(_ bundle: String, _ destination: String) -> AssetPackError? {
        expectError {
            try AssetInstaller(source: AssetSources.open(path: bundle, root: nil), destination: destination).installSynchronously()
        }
    }

    @Test func aPackLevelDeflatesTheMembersThatShrink() throws {
        let dir = try TemporaryDirectory("packs-deflated")
        let src = try Self.tree(dir)
        _ = try Self.buildDefault(src, dir.file("stored"), packSize: 8_000)
        _ = try Self.buildDefault(src, dir.file("out"), packSize: 8_000, packLevel: 6)
        let gathered = try readManifest(dir.file("out")).entries.filter { $0.storage?.file.hasPrefix(PackGrouping.folder + "/") == true }
        #expect(gathered.count == 121)
        #expect(gathered.first { $0.path == "noise-small.bin" }?.storage?.method == "stored", "noise does not shrink")
        let text = gathered.filter { $0.path != "noise-small.bin" && $0.size != 0 }
        #expect(text.count == 108 && text.allSatisfy { $0.storage?.method == "deflate" }, "text shrinks")
        func packBytes(_ bundle: String) throws -> UInt64 {
            try Self.packs(bundle).reduce(0) { $0 + ((try FileManager.default.attributesOfItem(atPath: $1)[.size] as? UInt64) ?? 0) }
        }
        #expect(try packBytes(dir.file("out")) < packBytes(dir.file("stored")))
        // Building over the stored bundle with the other level reuses none of its packs.
        _ = try Self.buildDefault(src, dir.file("stored"), packSize: 8_000, packLevel: 6)
        #expect(try readManifest(dir.file("stored")).entries == readManifest(dir.file("out")).entries)
        #expect(try packBytes(dir.file("stored")) == packBytes(dir.file("out")))
        let result = try AssetInstaller(source: AssetSources.open(path: dir.file("out"), root: nil),
                                        destination: dir.file("installed")).installSynchronously()
        #expect(result.files == 124)
        #expect(try snapshot(dir.file("installed")) == snapshot(src))
    }

    @Test func smallFilesGoToPackArchivesAndComeBack() throws {
        let dir = try TemporaryDirectory("packs")
        let src = try Self.tree(dir)
        let summary = try Self.buildDefault(src, dir.file("out"), packSize: 8_000)
        let manifest = try readManifest(dir.file("out"))
        let gathered = manifest.entries.filter { $0.storage?.file.hasPrefix(PackGrouping.folder + "/") == true }
        #expect(gathered.count == 121)  // 120 small files and noise-small.bin
        #expect(gathered.allSatisfy { $0.storage?.entry == $0.path })
        #expect(gathered.allSatisfy { $0.storage?.method == "stored" }, "pack members are stored by default")
        #expect(manifest.entries.first { $0.path == "over-limit.txt" }?.storage == .plain("over-limit.txt"))
        #expect(manifest.entries.first { $0.path == "inner.zip" }?.storage == .plain("inner.zip"))
        #expect(manifest.entries.first { $0.path == "big.txt" }?.storage?.file == "big.txt.zip")
        #expect(!FileManager.default.fileExists(atPath: dir.file("out/a/f3.json")))
        #expect(try Self.packs(dir.file("out")).count > 3)
        #expect(summary.files == 124 && summary.packed == 122)
        try TestUnpacker.unpack(bundle: dir.file("out"), to: dir.file("back"))
        #expect(try snapshot(dir.file("back")) == snapshot(src))
        let result = try AssetInstaller(source: AssetSources.open(path: dir.file("out"), root: nil),
                                        destination: dir.file("installed")).installSynchronously()
        #expect(result.files == 124)
        #expect(try snapshot(dir.file("installed")) == snapshot(src))
    }

    @Test func theDefaultLayoutIsDeterministic() throws {
        let dir = try TemporaryDirectory("packs-twice")
        let src = try Self.tree(dir)
        try Self.buildDefault(src, dir.file("one"))
        try Self.buildDefault(src, dir.file("two"))
        #expect(try bundleBytes(dir.file("one")) == bundleBytes(dir.file("two")))
    }

    @Test func thePackedViewListsAndOpensEveryFile() throws {
        let dir = try TemporaryDirectory("packs-view")
        let src = try Self.tree(dir)
        try Self.buildDefault(src, dir.file("out"), packSize: 8_000)
        let view = try PackedBundleSource(base: DirectorySource(root: dir.file("out")))
        #expect(try view.list(.root) == ["a", "b", "big.txt", "inner.zip", "noise-small.bin", "over-limit.txt", "日本語"])
        #expect(try view.list(try AssetPath("a")).count == 40)
        for (path, node) in try snapshot(src) {
            guard case .file(let bytes, _) = node else { continue }
            let stream = try view.open(try AssetPath(path))
            #expect(try readAll(stream) == bytes, "\(path)")
        }
    }

    @Test func otherToolsReadThePackArchives() throws {
        try ExternalTool.require(.unzip, .bsdtar, .python3)
        let dir = try TemporaryDirectory("packs-interop")
        let src = try Self.tree(dir)
        try Self.buildDefault(src, dir.file("out"), packSize: 8_000)
        let script = "import sys, zipfile\nz = zipfile.ZipFile(sys.argv[1])\nassert z.testzip() is None\nprint(len(z.namelist()))"
        for pack in try Self.packs(dir.file("out")) {
            let unzip = try run("unzip", ["-t", pack])
            #expect(unzip.status == 0, "\(pack): \(unzip.stdout) \(unzip.stderr)")
            let python = try run("python3", ["-c", script, pack])
            #expect(python.status == 0, "\(pack): \(python.stderr)")
        }
        try FileManager.default.createDirectory(atPath: dir.file("bsdtar"), withIntermediateDirectories: true)
        for pack in try Self.packs(dir.file("out")) {
            let bsdtar = try run("bsdtar", ["-xf", pack, "-C", dir.file("bsdtar")])
            #expect(bsdtar.status == 0, "\(pack): \(bsdtar.stderr)")
        }
        let unpacked = try snapshot(dir.file("bsdtar")).filter { if case .file = $0.value { true } else { false } }
        let small = try snapshot(src).filter { (path, node) in
            guard case .file(let bytes, _) = node else { return false }
            return bytes.count <= 65_536 && !path.hasSuffix(".zip")
        }
        #expect(unpacked.mapValues(\.bytesOnly) == small.mapValues(\.bytesOnly))
    }

    @Test func anUnchangedRebuildReusesEveryPackAndAChangedFileRepacksOnlyItsOwn() throws {
        let dir = try TemporaryDirectory("packs-incremental")
        let src = try Self.tree(dir)
        try Self.buildDefault(src, dir.file("out"), packSize: 8_000)
        let packs = try Self.packs(dir.file("out"))
        let inodes = packs.map(inodeNumber)
        let again = try Self.buildDefault(src, dir.file("out"), packSize: 8_000)
        #expect(again.reused == 122)
        #expect(try Self.packs(dir.file("out")).map(inodeNumber) == inodes)
        var changed = try fileBytes(dir.file("src/b/deeper/f5.json"))
        changed[10] ^= 0x20  // same size, other bytes: only the content check tells
        try dir.write("src/b/deeper/f5.json", changed)
        let third = try Self.buildDefault(src, dir.file("out"), packSize: 8_000)
        let after = try Self.packs(dir.file("out")).map(inodeNumber)
        #expect(zip(inodes, after).count { $0 != $1 } == 1)
        #expect(third.reused < 122 && third.reused > 100)
        try Self.buildDefault(src, dir.file("clean"), packSize: 8_000)
        #expect(try bundleBytes(dir.file("out")) == bundleBytes(dir.file("clean")))
    }

    @Test func anUpgradeLinksTheUnchangedFilesOfPackArchives() throws {
        let dir = try TemporaryDirectory("packs-upgrade")
        let src = try Self.tree(dir)
        try Self.buildDefault(src, dir.file("v1"))
        let first = try AssetInstaller(source: AssetSources.open(path: dir.file("v1"), root: nil),
                                       destination: dir.file("installed")).installSynchronously()
        #expect(first.filesWritten == 124)
        try dir.write("src/a/f7.json", text: "changed")
        try Self.buildDefault(src, dir.file("v2"))
        let second = try AssetInstaller(source: AssetSources.open(path: dir.file("v2"), root: nil),
                                        destination: dir.file("installed")).installSynchronously()
        #expect(second.filesWritten == 1 && second.filesLinked == 123)
        #expect(try snapshot(dir.file("installed")) == snapshot(src))
    }

    @Test func aPackArchiveWhoseEntryLiesAboutItsSizeOrBytesIsRefused() throws {
        let dir = try TemporaryDirectory("packs-lies")
        let src = try Self.tree(dir)
        try Self.buildDefault(src, dir.file("out"))
        let pack = try Self.packs(dir.file("out"))[0]
        let archive = try ZipArchive(path: pack)
        let entries = try archive.entries.map { entry in
            RawZip.file(entry.name, try archive.contents(of: entry))
        }
        // One byte more than the manifest records.
        var longer = entries
        longer[3].data += [0x41]
        try Data(RawZip(longer).build().bytes).write(to: URL(fileURLWithPath: pack))
        let sizeError = Self.installError(dir.file("out"), dir.file("one"))
        #expect(sizeError?.code == .verification)
        #expect(!FileManager.default.fileExists(atPath: dir.file("one")))
        // Same size, one byte flipped, and a CRC-32 that matches the flipped bytes: the manifest's CRC-32 catches it.
        var flipped = entries
        flipped[3].data[0] ^= 0x01
        try Data(RawZip(flipped).build().bytes).write(to: URL(fileURLWithPath: pack))
        let crcError = Self.installError(dir.file("out"), dir.file("two"))
        #expect(crcError?.code == .verification)
        #expect(!FileManager.default.fileExists(atPath: dir.file("two")))
    }

    @Test func aHostileEntryNameInAPackArchiveWritesNothingOutside() throws {
        let dir = try TemporaryDirectory("packs-hostile")
        let src = try Self.tree(dir)
        try Self.buildDefault(src, dir.file("out"))
        let pack = try Self.packs(dir.file("out"))[0]
        let archive = try ZipArchive(path: pack)
        var entries = try archive.entries.map { entry in RawZip.file(entry.name, try archive.contents(of: entry)) }
        let victim = archive.entries[2].name
        entries[2].name = Array("../../escape".utf8)
        try Data(RawZip(entries).build().bytes).write(to: URL(fileURLWithPath: pack))
        // The manifest still names the old entry, which the archive no longer has: refused.
        let missing = Self.installError(dir.file("out"), dir.file("one"))
        #expect(missing?.code == .archive)
        #expect(!FileManager.default.fileExists(atPath: dir.file("one")))
        // Pointed at the hostile name, the bytes land where the manifest says: paths come from the
        // manifest, never from a pack archive's entry names.
        var manifest = try readManifest(dir.file("out"))
        let index = try #require(manifest.entries.firstIndex { $0.path == victim })
        manifest.entries[index].storage?.entry = "../../escape"
        try FileManager.default.removeItem(atPath: dir.file("out/" + BundleManifest.path))
        try FileManager.default.removeItem(atPath: dir.file("out/" + BundleManifest.identityPath))
        try ManifestWriter.write(manifest, intoFolder: dir.file("out"))
        try AssetInstaller(source: AssetSources.open(path: dir.file("out"), root: nil),
                           destination: dir.file("two")).installSynchronously()
        #expect(try snapshot(dir.file("two")) == snapshot(src))
        #expect(!FileManager.default.fileExists(atPath: dir.file("escape")))
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/../escape"))
    }

    @Test func packsCanBeTurnedOff() throws {
        let dir = try TemporaryDirectory("packs-off")
        let src = try Self.tree(dir)
        try build(src, dir.file("out"), packMemberLimit: 0)
        #expect(!FileManager.default.fileExists(atPath: dir.file("out/" + PackGrouping.folder)))
        #expect(try fileBytes(dir.file("out/a/f3.json")) == fileBytes(dir.file("src/a/f3.json")))
    }

    @Test func groupingKeepsWalkingOrderAndTheBudget() throws {
        let items = try (0..<10).map { number in
            SourceItem(path: try AssetPath("d/f\(number)"), sourcePath: "/x", kind: .file, size: number == 4 ? 900 : 100,
                       isExecutable: false)
        }
        var grouping = PackGrouping(budget: 300)
        var groups = items.compactMap { grouping.add($0) }
        groups += [grouping.finish()].compactMap { $0 }
        let expected = [[0, 1, 2], [3], [4], [5, 6, 7], [8, 9]].map { $0.map { "f\($0)" } }
        #expect(groups.map { $0.members.map(\.path.name) } == expected)
        #expect(groups.map(\.archive.string) == (1...5).map { "assetpack-meta/packs/\($0).zip" })
    }
}

extension Node {
    /// The bytes of a file, ignoring its executable bit (other tools do not all keep it).
    var bytesOnly: [UInt8]? {
        if case .file(let bytes, _) = self { bytes } else { nil }
    }
}

/// Every byte of `stream`.
private func readAll(_ stream: any ByteStream) throws -> [UInt8] {
    var result: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = try buffer.withUnsafeMutableBytes { try stream.read(into: $0) }
        if count == 0 { return result }
        result += buffer[0..<count]
    }
}
