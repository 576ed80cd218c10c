import AssetPack
import AssetPackZip
import Foundation
import Testing
import TestSupport
@testable import AssetPackPacker

/// Rules with 64 KiB blocks, so small test files are deflated in several blocks.
func smallBlockRules(threshold: UInt64 = PackingRules.defaultThreshold) -> PackingRules {
    var rules = PackingRules(threshold: threshold)
    rules.chunking = ContentChunking(averageBits: 14)!
    rules.packMemberLimit = 0  // small files copied, as these tests count them (PackArchiveTests cover packs)
    return rules
}

/// The content-defined chunks of `bytes` by `chunking`, each hashed.
func chunks(of bytes: [UInt8], by chunking: ContentChunking) throws -> FileChunks {
    var offset = 0
    return try FileChunks.scan(by: chunking, hashesFile: true) { (buffer) throws(AssetPackError) -> Int in
        let count = min(buffer.count, bytes.count - offset)
        bytes.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[offset..<offset + count])) }
        offset += count
        return count
    }
}

/// A tree with files deflated in blocks, one packed in a single block, incompressible ones, small text,
/// and folders.
func blockTree(_ dir: TemporaryDirectory) throws -> String {
    var random = SeededRandom(seed: 33)
    try dir.write("src/models/big.txt", random.text(1_500_000))
    try dir.write("src/models/noise.bin", random.bytes(1_200_000))
    try dir.write("src/one-block.txt", random.text(60_000))
    try dir.write("src/strings/en.json", text: String(repeating: "{\"key\": \"value\"}, ", count: 200))
    try dir.write("src/strings/tiny.txt", text: "hi")
    try dir.write("src/bin/tool", random.bytes(3_000))
    try chmod(dir.file("src/bin/tool"), 0o755)
    try mkdir(dir.file("src/empty"))
    return dir.file("src")
}

/// Parallel packing and block indexes.
@Suite struct ParallelPackingTests {
    func buildFolder(_ source: String, _ output: String, rules: PackingRules = smallBlockRules(), jobs: Int) throws -> BuildSummary {
        try Packer(options: BuildOptions(rules: rules, jobs: jobs)).build(source: source, output: output)
    }

    func buildArchive(_ source: String, _ output: String, rules: PackingRules = smallBlockRules(), jobs: Int) throws -> BuildSummary {
        try Packer(options: BuildOptions(rules: rules, jobs: jobs)).buildArchive(source: source, output: output)
    }

    @Test func folderBundlesAreIdenticalWhateverTheJobs() throws {
        let dir = try TemporaryDirectory("jobs-folder")
        let src = try blockTree(dir)
        for jobs in [1, 2, 4] { _ = try buildFolder(src, dir.file("out\(jobs)"), rules: smallBlockRules(threshold: 1000), jobs: jobs) }
        let one = try bundleBytes(dir.file("out1"))
        #expect(try bundleBytes(dir.file("out2")) == one)
        #expect(try bundleBytes(dir.file("out4")) == one)
    }

    @Test func archivesAreIdenticalWhateverTheJobs() throws {
        let dir = try TemporaryDirectory("jobs-archive")
        let src = try blockTree(dir)
        for jobs in [1, 2, 4] { _ = try buildArchive(src, dir.file("\(jobs).zip"), jobs: jobs) }
        let one = try fileBytes(dir.file("1.zip"))
        #expect(try fileBytes(dir.file("2.zip")) == one)
        #expect(try fileBytes(dir.file("4.zip")) == one)
    }

    @Test func largeDeflatedFilesRecordTheirBlocks() throws {
        let dir = try TemporaryDirectory("blocks")
        let src = try blockTree(dir)
        _ = try buildFolder(src, dir.file("out"), rules: smallBlockRules(threshold: 1000), jobs: 2)
        let manifest = try readManifest(dir.file("out"))
        func storage(_ path: String) throws -> BundleManifest.Storage { try #require(manifest.entries.first { $0.path == path }?.storage) }
        let big = try storage("models/big.txt")
        let blocks = try #require(big.blocks)
        let chunking = smallBlockRules().chunking
        #expect(big.chunking == chunking.name)
        #expect(blocks.map { $0[0] } == (try chunks(of: fileBytes(src + "/models/big.txt"), by: chunking)).offsets)
        #expect(blocks.count > 23 && blocks.first == [0, 0])
        // A stored file has its chunks too, at the same offsets in the archive's data.
        #expect(try storage("models/noise.bin").method == "stored")
        #expect(try storage("models/noise.bin").blocks == (try chunks(of: fileBytes(src + "/models/noise.bin"), by: chunking)).storedPairs)
        #expect(try storage("one-block.txt").method == "deflate")
        #expect(try storage("one-block.txt").blocks == nil)
        #expect(try storage("strings/en.json").blocks == nil)
        // The recorded index fits the archive and inflates, block by block, to the source.
        let archive = try ZipArchive(path: dir.file("out/" + big.file))
        let entry = try archive.requireEntry(named: try #require(big.entry))
        let inflater = try BlockParallelInflater(archive: archive, entry: entry, index: DeflateBlockIndex(pairs: blocks))
        let fd = open(dir.file("inflated"), O_CREAT | O_RDWR, 0o600)
        defer { close(fd) }
        _ = try inflater.inflate(into: fd, path: dir.file("inflated"), jobs: 3)
        #expect(try fileBytes(dir.file("inflated")) == fileBytes(src + "/models/big.txt"))
        try TestUnpacker.unpack(bundle: dir.file("out"), to: dir.file("back"))
        #expect(try snapshot(dir.file("back")) == snapshot(src))
    }

    @Test func blockDeflatedArchivesReadEverywhere() throws {
        let dir = try TemporaryDirectory("blocks-interop")
        let src = try blockTree(dir)
        _ = try buildFolder(src, dir.file("out"), jobs: 2)
        _ = try buildArchive(src, dir.file("all.zip"), jobs: 2)
        try ExternalTool.unzip.require()
        let check = try run("/bin/sh", ["-c", "unzip -tq out/models/big.txt.zip && unzip -tq all.zip"], cwd: dir.path)
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        try ExternalTool.python3.require()
        let python = try run("/usr/bin/env", ["python3", "-c", """
            import zipfile, sys
            z = zipfile.ZipFile('all.zip')
            sys.exit(z.testzip() is not None or z.read('models/big.txt') != open('src/models/big.txt', 'rb').read())
            """], cwd: dir.path)
        #expect(python.status == 0, "\(python.stderr)")
        try ExternalTool.bsdtar.require()
        let bsdtar = try run("/bin/sh", ["-c", "mkdir x && bsdtar -xf out/models/big.txt.zip -C x && cmp x/big.txt src/models/big.txt"],
                             cwd: dir.path)
        #expect(bsdtar.status == 0, "\(bsdtar.stdout)\(bsdtar.stderr)")
    }

    @Test func archiveFormDeflatesSmallFilesThatShrink() throws {
        let dir = try TemporaryDirectory("archive-small")
        let src = try blockTree(dir)
        let summary = try buildArchive(src, dir.file("all.zip"), rules: PackingRules(), jobs: 2)
        let archive = try ZipArchive(path: dir.file("all.zip"))
        #expect(archive.entry(named: "strings/en.json")?.method == .deflate)
        #expect(archive.entry(named: "one-block.txt")?.method == .deflate)
        #expect(archive.entry(named: "models/big.txt")?.method == .deflate)
        #expect(archive.entry(named: "strings/tiny.txt")?.method == .stored)
        #expect(archive.entry(named: "bin/tool")?.method == .stored)
        #expect(archive.entry(named: "models/noise.bin")?.method == .stored)
        #expect(archive.entry(named: "bin/tool")?.isExecutable == true)
        #expect(summary.packed == 2 && summary.stored == 1)
        try TestUnpacker.unpack(archive: dir.file("all.zip"), to: dir.file("back"))
        #expect(try snapshot(dir.file("back")) == snapshot(src))
        let stored = try Packer(options: BuildOptions(rules: PackingRules(level: 0))).buildArchive(source: src, output: dir.file("stored.zip"))
        #expect(try ZipArchive(path: dir.file("stored.zip")).entries.allSatisfy { $0.method == .stored || $0.name == BundleManifest.path })
        #expect(stored.bytesOut > summary.bytesOut)
    }

    @Test func reusedArchivesKeepTheirBlocks() throws {
        let dir = try TemporaryDirectory("blocks-reuse")
        let src = try blockTree(dir)
        _ = try buildFolder(src, dir.file("out"), jobs: 2)
        let first = try readManifest(dir.file("out"))
        let again = try buildFolder(src, dir.file("out"), jobs: 1)
        #expect(again.reused == 2)
        #expect(try readManifest(dir.file("out")) == first)
        // An index cut by another chunking rule is not reused.
        var rules = smallBlockRules()
        rules.chunking = ContentChunking(averageBits: 15)!
        let other = try buildFolder(src, dir.file("out"), rules: rules, jobs: 2)
        #expect(other.reused == 0)
        let recut = try #require(try readManifest(dir.file("out")).entries.first { $0.path == "models/big.txt" }?.storage)
        #expect(recut.chunking == "gear/32768")
        #expect(recut.blocks?.count != first.entries.first { $0.path == "models/big.txt" }?.storage?.blocks?.count)
    }

    @Test func aDamagedBlockIndexIsNotLentToTheNextBuild() throws {
        let dir = try TemporaryDirectory("blocks-reuse-damaged")
        let src = try blockTree(dir)
        _ = try buildFolder(src, dir.file("out"), jobs: 2)
        let good = try #require(try readManifest(dir.file("out")).entries.first { $0.path == "models/big.txt" }?.storage?.blocks)
        try Self.damageBlockIndex(of: "models/big.txt", in: dir.file("out"))
        let again = try buildFolder(src, dir.file("out"), jobs: 1)
        #expect(again.reused == 1, "the other file is lent on, not the one with the damaged index")
        #expect(try readManifest(dir.file("out")).entries.first { $0.path == "models/big.txt" }?.storage?.blocks == good)
        try AssetInstaller(source: AssetSources.open(path: dir.file("out"), root: nil), destination: dir.file("installed")).installSynchronously()
        #expect(try snapshot(dir.file("installed")) == snapshot(src))
    }

    @Test(arguments: [true, false])
    func fileChangingSizeWhileDeflatedInBlocksIsNamed(grows: Bool) throws {
        let dir = try TemporaryDirectory("blocks-changing")
        var random = SeededRandom(seed: 82)
        try dir.write("src/a.txt", text: "first")
        try dir.write("src/b.txt", random.text(1_200_000))
        let changing = dir.file("src/b.txt")
        // After a.txt is done (one job: in order), b.txt grows or shrinks; it was scanned at 1,200,000 bytes.
        let error = expectError {
            _ = try Packer(options: BuildOptions(rules: smallBlockRules(), jobs: 1)).build(source: dir.file("src"), output: dir.file("out"),
                                                                                         progress: { _ in
                guard let handle = FileHandle(forWritingAtPath: changing) else { return }
                if grows {
                    handle.seekToEndOfFile()
                    handle.write(Data("more".utf8))
                } else {
                    handle.truncateFile(atOffset: 500_000)
                }
                handle.closeFile()
            })
        }
        #expect(error?.code == .verification)
        #expect(error?.path == changing)
        #expect(!FileManager.default.fileExists(atPath: dir.file("out")))
    }

    @Test func expandedBlockIndexedBundleIsTheSource() throws {
        let dir = try TemporaryDirectory("blocks-install")
        let src = try blockTree(dir)
        _ = try buildFolder(src, dir.file("out"), jobs: 2)
        final class Reports: @unchecked Sendable {
            let lock = NSLock()
            var bytes: [UInt64] = []
            var total: UInt64 = 0
        }
        for jobs in [1, 3] {
            let reports = Reports()
            let result = try AssetInstaller(source: AssetSources.open(path: dir.file("out"), root: nil),
                                            destination: dir.file("installed\(jobs)"), options: ExpansionOptions(jobs: jobs))
                .installSynchronously(progress: { progress in
                    reports.lock.withLock {
                        reports.bytes.append(progress.bytesDone)
                        reports.total = progress.bytesTotal
                    }
                })
            #expect(!result.upToDate)
            #expect(try snapshot(dir.file("installed\(jobs)")) == snapshot(src))
            // Progress counts every byte once, and never goes back.
            #expect(reports.bytes.last == reports.total)
            #expect(reports.bytes == reports.bytes.sorted())
        }
    }

    @Test func expansionRefusesADamagedBlockIndex() throws {
        let dir = try TemporaryDirectory("blocks-damaged")
        let src = try blockTree(dir)
        _ = try buildFolder(src, dir.file("out"), jobs: 2)
        try Self.damageBlockIndex(of: "models/big.txt", in: dir.file("out"))
        let error = expectError {
            try AssetInstaller(source: AssetSources.open(path: dir.file("out"), root: nil), destination: dir.file("installed")).installSynchronously()
        }
        #expect(error != nil)
        #expect(!FileManager.default.fileExists(atPath: dir.file("installed/models/big.txt")))
    }

    /// Moves the compressed offset of block 5 of `path`'s index in the manifest of `bundle` one byte on: still in
    /// order and inside the entry, so only inflating the block tells.
    static func damageBlockIndex(of path: String, in bundle: String) throws {
        var manifest = try readManifest(bundle)
        let position = try #require(manifest.entries.firstIndex { $0.path == path })
        manifest.entries[position].storage?.blocks?[5][1] += 1
        try FileManager.default.removeItem(atPath: bundle + "/" + BundleManifest.path)
        try Data(try manifest.encodedJSON()).write(to: URL(fileURLWithPath: bundle + "/" + BundleManifest.path))
    }
}
