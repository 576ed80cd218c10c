@testable import AssetPack
import AssetPackZip
import Foundation
import Testing
import TestSupport

@Suite struct InstallTests {
    @Test func aPackedBundleExpandsToTheExactTreeAndLeavesOnlyTheRecord() throws {
        let scratch = try TemporaryDirectory("install-bundle")
        try ExpansionFixtures.bundle(.standard, packed: ["big.bin": .deflate, "nested/deeper/x.bin": .stored],
                                     at: scratch.file("bundle"), scratch: scratch)
        let installer = try AssetInstaller(source: DirectorySource(root: scratch.file("bundle")),
                                           destination: scratch.file("out/assets"))
        let result = try installer.installSynchronously()
        #expect(!result.upToDate)
        #expect(result.files == AssetTree.standard.files.count)
        #expect(DiskTree.read(scratch.file("out/assets")) == DiskTree(.standard))
        #expect(folderNames(scratch.file("out")) == ["assets"])
        #expect(folderNames(scratch.file("out/assets/.assetpack")) == ["flushed", "identity", "installed.json.gz"], "flushed: a durable install")
        #expect(installer.isUpToDate())
    }

    @Test func theSecondCallIsUpToDateWithoutWalkingOrTouchingTheTree() throws {
        let scratch = try TemporaryDirectory("install-uptodate")
        try ExpansionFixtures.bundle(.standard, packed: ["big.bin": .deflate], at: scratch.file("bundle"), scratch: scratch)
        let destination = scratch.file("assets")
        try AssetInstaller(source: DirectorySource(root: scratch.file("bundle")), destination: destination).installSynchronously()
        let before = try FileManager.default.attributesOfItem(atPath: destination + "/big.bin")
        let counting = CallCountingSource(DirectorySource(root: scratch.file("bundle")))
        let installer = try AssetInstaller(source: counting, destination: destination)
        var fastest = Double.infinity
        for _ in 0..<20 {
            let result = try installer.installSynchronously()
            #expect(result.upToDate)
            fastest = min(fastest, result.seconds)
        }
        #expect(counting.lists == 0)
        #expect(Set(counting.opens) == ["assetpack-meta/identity"])
        #expect(fastest < 0.001, "up-to-date call took \(fastest * 1000) ms")
        let after = try FileManager.default.attributesOfItem(atPath: destination + "/big.bin")
        #expect(before[.modificationDate] as? Date == after[.modificationDate] as? Date)
        #expect(before[.systemFileNumber] as? NSNumber == after[.systemFileNumber] as? NSNumber)
        #expect(DiskTree.read(destination) == DiskTree(.standard))
    }

    @Test func anAPKLikeArchiveExpandsFromItsRootWithTheInnerZipUnzippedInPlace() throws {
        let scratch = try TemporaryDirectory("install-apk")
        var random = SeededRandom(seed: 7)
        let frog = random.bytes(20_000), toad = random.text(5_000)
        let inner = try ExpansionFixtures.zipBytes([("photos/frog.jpg", frog, .stored), ("photos/pond/toad.txt", toad, .deflate)],
                                                   scratch: scratch)
        let stored = random.bytes(3_000), deflated = random.text(40_000)
        // No directory entries, as in an APK; files outside the root must not appear.
        try ExpansionFixtures.zip(at: scratch.file("app.apk"), [
            ("AndroidManifest.xml", Array("<manifest/>".utf8), .deflate),
            ("classes.dex", random.bytes(100), .deflate),
            ("assets/data/levels/one.bin", stored, .stored),
            ("assets/data/text/story.txt", deflated, .deflate),
            ("assets/data/binary/photos.zip", inner, .stored),
            ("assets/other/skip.txt", [1], .deflate),
        ])
        let source = try AssetSources.container(path: scratch.file("app.apk"), root: "assets/data")
        let result = try AssetInstaller(source: source, destination: scratch.file("assets")).installSynchronously()
        #expect(result.files == 4)
        var expected = DiskTree()
        expected.files = ["levels/one.bin": stored, "text/story.txt": deflated,
                          "binary/photos/frog.jpg": frog, "binary/photos/pond/toad.txt": toad]
        expected.directories = ["levels", "text", "binary", "binary/photos", "binary/photos/pond"]
        #expect(DiskTree.read(scratch.file("assets")) == expected)
    }

    @Test func aDeflatedInnerZipIsSpooledAndStillUnzipped() throws {
        let scratch = try TemporaryDirectory("install-spool")
        let inner = try ExpansionFixtures.zipBytes([("a/b.txt", Array("bee".utf8), .deflate)], scratch: scratch)
        try ExpansionFixtures.zip(at: scratch.file("app.apk"), [("assets/pack.zip", inner, .deflate)])
        let source = try AssetSources.container(path: scratch.file("app.apk"), root: "assets")
        try AssetInstaller(source: source, destination: scratch.file("assets")).installSynchronously()
        #expect(DiskTree.read(scratch.file("assets"))?.files == ["a/b.txt": Array("bee".utf8)])
    }

    @Test func unsafeNamesInAnArchiveWriteNothingOutsideTheDestination() throws {
        let scratch = try TemporaryDirectory("install-unsafe")
        for name in ["../evil", "/tmp/assetpack-evil-\(UUID().uuidString)"] {
            try ExpansionFixtures.zip(at: scratch.file("tree/x.zip"), [("good.txt", [1], .stored), (name, [6], .stored)])
            let installer = try AssetInstaller(source: DirectorySource(root: scratch.file("tree")),
                                               destination: scratch.file("out/assets"))
            let error = #expect(throws: AssetPackError.self) { try installer.installSynchronously() }
            #expect(error?.code == .unsafePath)
            // The folder made for the destination is removed again with everything else the run made.
            #expect(folderNames(scratch.path).filter { !$0.hasPrefix("pack-") && !$0.hasPrefix("zip-") } == ["tree"])
            #expect(!FileManager.default.fileExists(atPath: scratch.file("evil")))
        }
    }

    @Test func aCorruptFileFailsVerificationAndKeepsThePreviousTree() throws {
        let scratch = try TemporaryDirectory("install-corrupt")
        let v1 = AssetTree(files: ["a.txt": Array("version one".utf8)])
        try ExpansionFixtures.bundle(v1, packed: [:], at: scratch.file("bundle"), scratch: scratch)
        let destination = scratch.file("assets")
        try AssetInstaller(source: DirectorySource(root: scratch.file("bundle")), destination: destination).installSynchronously()
        let v2 = AssetTree(files: ["a.txt": Array("version two".utf8), "b.txt": Array("bee".utf8)])
        try ExpansionFixtures.bundle(v2, packed: [:], at: scratch.file("bundle"), scratch: scratch)
        try scratch.write("bundle/b.txt", text: "BEE")  // same size, other bytes
        let error = #expect(throws: AssetPackError.self) {
            try AssetInstaller(source: DirectorySource(root: scratch.file("bundle")), destination: destination).installSynchronously()
        }
        #expect(error?.code == .verification)
        #expect(error?.description.contains("b.txt") == true)
        #expect(DiskTree.read(destination) == DiskTree(v1))
        // A file that does not match its manifest cannot be resumed: the staging tree is gone.
        #expect(hiddenNames(scratch.path) == [])
    }

    @Test func notEnoughSpaceIsRefusedBeforeWriting() throws {
        let scratch = try TemporaryDirectory("install-space")
        try ExpansionFixtures.bundle(.standard, packed: [:], at: scratch.file("bundle"), scratch: scratch)
        var options = ExpansionOptions()
        options.testSeam.freeSpace = 10_000
        let installer = try AssetInstaller(source: DirectorySource(root: scratch.file("bundle")), destination: scratch.file("assets"),
                                           options: options)
        let error = #expect(throws: AssetPackError.self) { try installer.installSynchronously() }
        #expect(error?.code == .noSpace)
        #expect(error?.message.contains("needs") == true)
        #expect(error?.message.contains("10000 bytes") == false)
        #expect(error?.message.contains("9.8 KiB are free") == true)
        #expect(!FileManager.default.fileExists(atPath: scratch.file("assets")))
        #expect(hiddenNames(scratch.path) == [], "a refused free-space check leaves no staging tree")
    }

    @Test func aForeignNonEmptyFolderIsNotReplaced() throws {
        let scratch = try TemporaryDirectory("install-foreign")
        try ExpansionFixtures.bundle(.standard, packed: [:], at: scratch.file("bundle"), scratch: scratch)
        try scratch.write("documents/precious.txt", text: "mine")
        let error = #expect(throws: AssetPackError.self) {
            try AssetInstaller(source: DirectorySource(root: scratch.file("bundle")), destination: scratch.file("documents")).installSynchronously()
        }
        #expect(error?.code == .invalidArgument)
        #expect(FileManager.default.fileExists(atPath: scratch.file("documents/precious.txt")))
    }

    @Test func aDestinationOverlappingAFolderSourceIsRefused() throws {
        let scratch = try TemporaryDirectory("install-overlap")
        try scratch.write("tree/a.txt", text: "a")
        for destination in [scratch.file("tree/out"), scratch.path] {
            let error = #expect(throws: AssetPackError.self) {
                try AssetInstaller(source: DirectorySource(root: scratch.file("tree")), destination: destination).installSynchronously()
            }
            #expect(error?.code == .invalidArgument)
        }
        #expect(folderNames(scratch.file("tree")) == ["a.txt"])
    }

    @Test func aChangedTreeWithoutManifestIsExpandedAgain() throws {
        let scratch = try TemporaryDirectory("install-tree")
        try scratch.write("tree/a.txt", text: "one")
        let destination = scratch.file("assets")
        let first = try AssetInstaller(source: DirectorySource(root: scratch.file("tree")), destination: destination).installSynchronously()
        #expect(!first.upToDate)
        let second = try AssetInstaller(source: DirectorySource(root: scratch.file("tree")), destination: destination).installSynchronously()
        #expect(second.upToDate)
        try scratch.write("tree/a.txt", text: "three")
        try scratch.write("tree/sub/b.txt", text: "bee")
        let third = try AssetInstaller(source: DirectorySource(root: scratch.file("tree")), destination: destination).installSynchronously()
        #expect(!third.upToDate)
        #expect(DiskTree.read(destination)?.files == ["a.txt": Array("three".utf8), "sub/b.txt": Array("bee".utf8)])
    }

    @Test func containedSymlinksAreCreatedWhenAllowedAndEscapingOnesRefused() throws {
        let scratch = try TemporaryDirectory("install-links")
        try makeParent(scratch.file("tree/links.zip"))
        let writer = try ZipWriter(path: scratch.file("tree/links.zip"))
        try writer.addFile("d/target.txt", contents: [1])
        try writer.addSymlink("d/link", target: "target.txt")
        try writer.addSymlink("up", target: "d/../d/target.txt")
        try writer.finish(sync: false)
        let options = ExpansionOptions(allowSymlinks: true)
        try AssetInstaller(source: DirectorySource(root: scratch.file("tree")), destination: scratch.file("ok"), options: options).installSynchronously()
        #expect(DiskTree.read(scratch.file("ok"))?.symlinks == ["d/link": "target.txt", "up": "d/../d/target.txt"])

        // "d/l" points at the top, so "x" → "d/l/.." is above the destination on the real file system,
        // although it looks contained when read as text.
        try makeParent(scratch.file("tree2/links.zip"))
        let sneaky = try ZipWriter(path: scratch.file("tree2/links.zip"))
        try sneaky.addDirectory("d")
        try sneaky.addSymlink("d/l", target: "..")
        try sneaky.addSymlink("x", target: "d/l/..")
        try sneaky.finish(sync: false)
        let error = #expect(throws: AssetPackError.self) {
            try AssetInstaller(source: DirectorySource(root: scratch.file("tree2")), destination: scratch.file("bad"),
                               options: options).installSynchronously()
        }
        #expect(error?.code == .symlink)
        #expect(!FileManager.default.fileExists(atPath: scratch.file("bad")))
    }

    @Test func theAsyncEntryPointExpandsAndCanBeCancelled() async throws {
        let scratch = try TemporaryDirectory("install-async")
        try ExpansionFixtures.bundle(.standard, packed: ["big.bin": .deflate], at: scratch.file("bundle"), scratch: scratch)
        let installer = try AssetInstaller(source: DirectorySource(root: scratch.file("bundle")), destination: scratch.file("a"))
        let result = try await installer.install()
        #expect(!result.upToDate)
        #expect(DiskTree.read(scratch.file("a")) == DiskTree(.standard))

        let slow = try AssetInstaller(source: DirectorySource(root: scratch.file("bundle")), destination: scratch.file("b"),
                                      options: ExpansionOptions(jobs: 1))
        // The first progress report holds the install until the task has been cancelled, so the
        // cancellation always arrives mid-install, however fast or loaded the machine.
        let reports = ReportLog()
        let cancelled = DispatchSemaphore(value: 0)
        let task = Task { () async throws(AssetPackError) -> ExpansionResult in
            try await slow.install { report in
                reports.append(report)
                if reports.all.count == 1 { cancelled.wait() }
            }
        }
        while reports.all.isEmpty { try await Task.sleep(nanoseconds: 1_000_000) }
        task.cancel()
        cancelled.signal()
        let outcome = await task.result
        guard case .failure(let error) = outcome else {
            Issue.record("expected cancellation")
            return
        }
        #expect((error as? AssetPackError)?.code == .cancelled)
        #expect(!FileManager.default.fileExists(atPath: scratch.file("b")))
        try await slow.install(progress: nil)
        #expect(DiskTree.read(scratch.file("b")) == DiskTree(.standard))
    }

    @Test func progressReportsKnownTotalsAndEndsComplete() throws {
        let scratch = try TemporaryDirectory("install-progress")
        try ExpansionFixtures.bundle(.standard, packed: ["big.bin": .deflate], at: scratch.file("bundle"), scratch: scratch)
        let reports = ReportLog()
        try AssetInstaller(source: DirectorySource(root: scratch.file("bundle")), destination: scratch.file("assets"))
            .installSynchronously { reports.append($0) }
        let writing = reports.all.filter { $0.phase == .writing }
        #expect(!writing.isEmpty)
        #expect(writing.allSatisfy { $0.filesTotal == AssetTree.standard.files.count })
        #expect(writing.last?.filesDone == AssetTree.standard.files.count)
        #expect(writing.last?.bytesDone == writing.last?.bytesTotal)
        #expect(reports.all.map(\.phase).contains(.committed))
        #expect(reports.all.last?.phase == .done)
    }

    @Test func withoutFlushingTheTreeAndRecordAreTheSame() throws {
        let scratch = try TemporaryDirectory("install-no-flush")
        try ExpansionFixtures.bundle(.standard, packed: ["big.bin": .deflate], at: scratch.file("bundle"), scratch: scratch)
        let options = ExpansionOptions(durability: .none)
        let installer = try AssetInstaller(source: DirectorySource(root: scratch.file("bundle")), destination: scratch.file("assets"),
                                           options: options)
        #expect(!(try installer.installSynchronously()).upToDate)
        #expect(DiskTree.read(scratch.file("assets")) == DiskTree(.standard))
        #expect(folderNames(scratch.file("assets/.assetpack")) == ["identity", "installed.json.gz"])
        // Durability does not change the tree, so a flushing installer finds it up to date.
        #expect(try AssetInstaller(source: DirectorySource(root: scratch.file("bundle")), destination: scratch.file("assets"))
            .isUpToDate())
    }

    @Test func anArchiveSourceIsKnownUpToDateByItsFingerprintAndAChangedOneIsExpandedAgain() throws {
        let scratch = try TemporaryDirectory("install-zip-fingerprint")
        let archive = scratch.file("app.zip"), destination = scratch.file("assets")
        try ExpansionFixtures.zip(at: archive, [("a.txt", Array("one".utf8), .deflate), ("d/b.bin", [1, 2, 3], .stored)])
        let first = try AssetInstaller(source: ZipAssetSource(path: archive), destination: destination)
        #expect(!first.isUpToDate())
        #expect(!(try first.installSynchronously()).upToDate)
        #expect(folderNames(destination + "/.assetpack") == ["flushed", "identity", "installed.json.gz", "source"])
        // A fresh source over the same archive is answered from the record alone, with no plan.
        let again = try AssetInstaller(source: ZipAssetSource(path: archive), destination: destination)
        #expect(again.isUpToDate())
        #expect((try again.installSynchronously()).upToDate)
        // Other options change the tree, so they do not match the fingerprint.
        let keeping = try AssetInstaller(source: ZipAssetSource(path: archive), destination: destination,
                                         options: ExpansionOptions(keepZips: true))
        #expect(!keeping.isUpToDate())
        // A changed archive (same names, other bytes) is expanded again.
        try ExpansionFixtures.zip(at: archive, [("a.txt", Array("two".utf8), .deflate), ("d/b.bin", [1, 2, 3], .stored)])
        let changed = try AssetInstaller(source: ZipAssetSource(path: archive), destination: destination)
        #expect(!changed.isUpToDate())
        #expect(!(try changed.installSynchronously()).upToDate)
        #expect(DiskTree.read(destination)?.files == ["a.txt": Array("two".utf8), "d/b.bin": [1, 2, 3]])
    }
}

/// Progress reports collected from any thread.
final class ReportLog: @unchecked Sendable {
    private let lock = NSLock()
    private var reports: [ExpansionProgress] = []
    func append(_ report: ExpansionProgress) { lock.lock(); reports.append(report); lock.unlock() }
    var all: [ExpansionProgress] { lock.lock(); defer { lock.unlock() }; return reports }
}
