@testable import AssetPack
import AssetPackZip
import Foundation
import Testing
import TestSupport
@testable import AssetPackPacker

/// The first install of a bundle a window of its manifest at a time (`InstallTransaction`, `InstallPlanning`,
/// forced here with tiny windows through the test seam): the same tree and the same record as a whole plan,
/// the same errors, and nothing left when it fails or must fall back to a whole plan.
@Suite struct WindowedInstallTests {
    /// A tree with nested and empty folders, small files gathered into pack archives, a packed file, a
    /// block-indexed one, a plain one and an executable; its bundle at `bundle`.
    static func build(_ dir: TemporaryDirectory, bundle: String = "bundle") throws {
        var random = SeededRandom(seed: 41)
        for folder in 0..<3 {
            for file in 0..<5 { try dir.write("src/d\(folder)/sub/f\(file).txt", random.text(Int(random.next() % 300) + 1)) }
        }
        try dir.write("src/d1/zz.txt", text: "last of d1")
        try dir.write("src/packed.txt", random.text(40_000))
        try dir.write("src/blocks.txt", random.text(300_000))
        try dir.write("src/plain.bin", (0..<5_000).map { _ in UInt8(truncatingIfNeeded: random.next()) })
        try chmod(try dir.write("src/run.sh", text: "#!/bin/sh\n"), 0o755)
        try mkdir(dir.file("src/empty/inner"))
        var rules = PackingRules(threshold: 1024)
        rules.chunking = ContentChunking(averageBits: 14)!
        _ = try Packer(options: BuildOptions(rules: rules)).build(source: dir.file("src"), output: dir.file(bundle))
    }

    static func options(window: Int?, durable: Bool = false, jobs: Int = 2) -> ExpansionOptions {
        var options = ExpansionOptions(jobs: jobs)
        options.durability = durable ? .flushOnCommit : .none
        options.testSeam.windowItems = window
        return options
    }

    /// Installs `bundle` into `destination` in windows of 2 on one thread, cancelled once `stop` says so of a
    /// progress report; what it threw.
    static func cancelled(installing bundle: String, into destination: String,
                          when stop: @escaping @Sendable (ExpansionProgress) -> Bool) throws -> AssetPackError? {
        let cancellation = ExpansionCancellation()
        let installer = try AssetInstaller(source: DirectorySource(root: bundle), destination: destination,
                                           options: options(window: 2, jobs: 1))
        return #expect(throws: AssetPackError.self) {
            try installer.installSynchronously(progress: { if stop($0) { cancellation.cancel() } }, cancellation: cancellation)
        }
    }

    /// Installs `bundle` into `destination`, returning the result and every total the progress reported.
    static func install(_ bundle: String, into destination: String,
                        options: ExpansionOptions) throws -> (result: ExpansionResult, totals: Set<Int>, last: ExpansionProgress?) {
        let totals = LockedTotals()
        let result = try AssetInstaller(source: DirectorySource(root: bundle), destination: destination, options: options)
            .installSynchronously(progress: { totals.add($0.filesTotal, $0) })
        return (result, totals.values, totals.last)
    }

    @Test(arguments: [(1, false), (3, false), (7, true), (1_000, true)])
    func aWindowedInstallIsTheTreeAndTheRecordOfAWholePlan(window: Int, durable: Bool) throws {
        let dir = try TemporaryDirectory("windowed-same")
        try Self.build(dir)
        let whole = try Self.install(dir.file("bundle"), into: dir.file("whole"), options: Self.options(window: nil, durable: durable))
        let windowed = try Self.install(dir.file("bundle"), into: dir.file("windowed"), options: Self.options(window: window, durable: durable))
        #expect(DiskTree.read(dir.file("windowed")) == DiskTree.read(dir.file("whole")))
        #expect(try recordTextWithoutInodes(ofTree: dir.file("windowed")) == recordTextWithoutInodes(ofTree: dir.file("whole")))
        #expect(folderNames(dir.file("windowed/.assetpack")) == folderNames(dir.file("whole/.assetpack")))
        #expect(windowed.result.files == whole.result.files && windowed.result.bytes == whole.result.bytes)
        #expect(windowed.result.identity == whole.result.identity && windowed.result.filesWritten == whole.result.filesWritten)
        let mode = try FileManager.default.attributesOfItem(atPath: dir.file("windowed/run.sh"))[.posixPermissions] as? Int
        #expect(mode == 0o755)
        // The totals of a windowed install grow window by window; a whole plan knows them at once.
        #expect(whole.totals.subtracting([0]).count == 1)
        if window < whole.result.files { #expect(windowed.totals.subtracting([0]).count > 1) }
        #expect(hiddenNames(dir.path).isEmpty)
        // Installed a window at a time, the tree is up to date for the next call, and an upgrade links from it.
        let again = try Self.install(dir.file("bundle"), into: dir.file("windowed"), options: Self.options(window: window))
        #expect(again.result.upToDate)
    }

    @Test func anUpgradeOfATreeInstalledAWindowAtATimeLinksItsUnchangedFiles() throws {
        let dir = try TemporaryDirectory("windowed-upgrade")
        try Self.build(dir)
        _ = try Self.install(dir.file("bundle"), into: dir.file("out"), options: Self.options(window: 2))
        try dir.write("src/d0/sub/f0.txt", text: "changed")
        _ = try Packer(options: BuildOptions(rules: PackingRules(threshold: 1024))).build(source: dir.file("src"), output: dir.file("v2"))
        let upgrade = try Self.install(dir.file("v2"), into: dir.file("out"), options: Self.options(window: 2))
        #expect(upgrade.result.filesWritten == 1)
        #expect(upgrade.result.filesLinked == upgrade.result.files - 1)
        #expect(DiskTree.read(dir.file("out"))?.files["d0/sub/f0.txt"] == Array("changed".utf8))
    }

    /// Two names that differ only in case, in different windows: the whole plan decides and words it.
    @Test func aCollisionAcrossWindowsIsTheErrorOfTheWholePlanAndLeavesNothing() throws {
        let dir = try TemporaryDirectory("windowed-collision")
        try Self.build(dir)
        var manifest = try readManifest(dir.file("bundle"))
        var twin = try #require(manifest.entries.first { $0.path == "d1/zz.txt" })
        twin.path = "D1/zz.txt"  // sorts before every lowercase name, its folder implied; "d1" comes windows later
        manifest.entries.insert(twin, at: 0)
        manifest.identity = ContentIdentity.of(manifest.entries)
        try ManifestHashTests.replaceManifest(of: dir.file("bundle"), with: manifest)
        let whole = #expect(throws: AssetPackError.self) {
            try Self.install(dir.file("bundle"), into: dir.file("whole"), options: Self.options(window: nil))
        }
        let windowed = #expect(throws: AssetPackError.self) {
            try Self.install(dir.file("bundle"), into: dir.file("windowed"), options: Self.options(window: 2))
        }
        #expect(whole?.code == .conflict)
        #expect(windowed?.code == whole?.code && windowed?.message == whole?.message)
        #expect(!FileManager.default.fileExists(atPath: dir.file("windowed")))
        #expect(hiddenNames(dir.path).isEmpty)
    }

    /// A manifest's entries must be in path order (the identity is hashed in that order): one out of order is
    /// refused, naming it, after the windows before it were written, and nothing is left behind.
    @Test func aManifestOutOfOrderIsRefusedAndNothingIsLeft() throws {
        let dir = try TemporaryDirectory("windowed-unsorted")
        try Self.build(dir)
        var manifest = try readManifest(dir.file("bundle"))
        manifest.entries.swapAt(3, manifest.entries.count - 1)
        try ManifestHashTests.replaceManifest(of: dir.file("bundle"), with: manifest)
        let windowed = #expect(throws: AssetPackError.self) {
            try Self.install(dir.file("bundle"), into: dir.file("windowed"), options: Self.options(window: 2))
        }
        let whole = #expect(throws: AssetPackError.self) {
            try Self.install(dir.file("bundle"), into: dir.file("whole"), options: Self.options(window: nil))
        }
        #expect(windowed?.code == .manifest && windowed?.message == whole?.message)
        #expect(windowed?.message == "the entries are not in path order: \"\(manifest.entries[4].path)\" comes after \"\(manifest.entries[3].path)\"")
        #expect(!FileManager.default.fileExists(atPath: dir.file("windowed")) && !FileManager.default.fileExists(atPath: dir.file("whole")))
        #expect(hiddenNames(dir.path).isEmpty)
    }

    /// The identity is known to be wrong only at the end of the manifest, after every window was written.
    @Test func aForgedManifestIsRefusedAfterTheLastWindowAndNothingIsLeft() throws {
        let dir = try TemporaryDirectory("windowed-forged")
        try Self.build(dir)
        var manifest = try readManifest(dir.file("bundle"))
        let index = try #require(manifest.entries.firstIndex { $0.path == "d1/zz.txt" })
        manifest.entries[index].mode = 0o600  // the identity still says 0o644
        try ManifestHashTests.replaceManifest(of: dir.file("bundle"), with: manifest)
        let error = #expect(throws: AssetPackError.self) {
            try Self.install(dir.file("bundle"), into: dir.file("out"), options: Self.options(window: 2))
        }
        #expect(error?.code == .manifest)
        #expect(error?.message.contains("identity") == true)
        #expect(!FileManager.default.fileExists(atPath: dir.file("out")))
        #expect(hiddenNames(dir.path).isEmpty)
    }

    @Test func anInterruptedWindowedInstallResumesWithoutItsTemporaryRecord() throws {
        let dir = try TemporaryDirectory("windowed-resume")
        try Self.build(dir)
        let error = try Self.cancelled(installing: dir.file("bundle"), into: dir.file("out")) { $0.filesWritten >= 9 }
        #expect(error?.code == .cancelled)
        #expect(hiddenNames(dir.path) == [".out.assetpack-staging"])
        let resumed = try Self.install(dir.file("bundle"), into: dir.file("out"), options: Self.options(window: 2))
        _ = try Self.install(dir.file("bundle"), into: dir.file("whole"), options: Self.options(window: nil))
        #expect(resumed.result.filesResumed >= 9)
        #expect(DiskTree.read(dir.file("out")) == DiskTree.read(dir.file("whole")))
        #expect(folderNames(dir.file("out/.assetpack")) == folderNames(dir.file("whole/.assetpack")))
        #expect(try recordTextWithoutInodes(ofTree: dir.file("out")) == recordTextWithoutInodes(ofTree: dir.file("whole")))
    }

    /// The free space is checked for each window before it is written; a window that does not fit ends the
    /// install with nothing of it left.
    @Test func aWindowThatDoesNotFitEndsTheInstallAndRemovesWhatWasWritten() throws {
        let dir = try TemporaryDirectory("windowed-space")
        try Self.build(dir)
        var options = Self.options(window: 4)
        // The first window (with the 300,000-byte file) fits; by the window with the 40,000-byte one, too little is left.
        options.testSeam.freeSpace = 400_000
        let written = LockedTotals()
        let error = #expect(throws: AssetPackError.self) {
            try AssetInstaller(source: DirectorySource(root: dir.file("bundle")), destination: dir.file("out"), options: options)
                .installSynchronously(progress: { written.add($0.filesWritten, $0) })
        }
        #expect(error?.code == .noSpace)
        #expect((written.values.max() ?? 0) > 1, "a later window was refused")
        #expect(!FileManager.default.fileExists(atPath: dir.file("out")))
        #expect(hiddenNames(dir.path).isEmpty)
    }
}

/// The counts a progress callback saw, and its last report.
private final class LockedTotals: @unchecked Sendable {
    private let lock = NSLock()
    private var seen: Set<Int> = []
    private var lastReport: ExpansionProgress?
    func add(_ count: Int, _ report: ExpansionProgress) {
        lock.withLock {
            seen.insert(count)
            lastReport = report
        }
    }
    var values: Set<Int> { lock.withLock { seen } }
    var last: ExpansionProgress? { lock.withLock { lastReport } }
}
