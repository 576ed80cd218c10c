@testable import AssetPack
import AssetPackSystem
import AssetPackZip
import Foundation
import Synchronization
import Testing
import TestSupport

/// The first install of an archive given as the source a window of its central directory at a time
/// (`InstallTransaction`, `InstallPlanning`, `ArchiveWindowPlanner`), as every archive given as the source is
/// installed, here with tiny windows (the test seam) and entries not held (`ZipLimits.maxHeldDirectoryBytes`). The
/// same tree and the same identity as a whole plan, in the archive's own order; the whole plan's errors;
/// nothing left when it fails or must fall back.
@Suite struct WindowedArchiveInstallTests {
    /// Entries in the order `zip -r` writes them: a folder's entries unsorted, each subfolder where it is
    /// met, folder entries with modes, an empty folder, an executable, an implied folder.
    static let entries: [(name: String, kind: Kind)] = [
        ("game/", .folder(0o755)), ("game/zeta.txt", .file(0o644)), ("game/levels/", .folder(0o700)),
        ("game/levels/3.json", .file(0o600)), ("game/levels/1.json", .file(0o644)), ("game/levels/deep/2.bin", .file(0o644)),
        ("game/run.sh", .file(0o755)), ("game/empty/", .folder(0o755)), ("game/Alpha.txt", .file(0o644)),
        ("game/art/x/y/z.png", .file(0o644)), ("game/art/a.png", .file(0o644)), ("game/b.txt", .file(0o644)),
    ]

    enum Kind {
        case folder(UInt32)
        case file(UInt32)
    }

    /// Writes `entries` (file contents made from the name) into an archive at `path`.
    static func write(_ entries: [(name: String, kind: Kind)], to path: String) throws {
        let writer = try ZipWriter(path: path)
        var random = SeededRandom(seed: 7)
        for (name, kind) in entries {
            switch kind {
            case .folder(let mode): try writer.addDirectory(name, permissions: mode)
            case .file(let mode):
                let size = Int(random.next() % 5_000)
                try writer.addFile(name, contents: (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ name.utf8.count) },
                                   method: size % 2 == 0 ? .deflate : .stored, permissions: mode)
            }
        }
        try writer.finish(sync: false)
    }

    /// The same tree in the order libarchive's `bsdtar` writes it: a folder's subfolders stated before
    /// they are filled.
    static let breadthFirst: [(name: String, kind: Kind)] = [
        ("game/", .folder(0o755)), ("game/levels/", .folder(0o700)), ("game/empty/", .folder(0o755)), ("game/art/", .folder(0o755)),
        ("game/zeta.txt", .file(0o644)), ("game/run.sh", .file(0o755)), ("game/Alpha.txt", .file(0o644)), ("game/b.txt", .file(0o644)),
        ("game/levels/deep/", .folder(0o755)), ("game/levels/3.json", .file(0o600)), ("game/levels/1.json", .file(0o644)),
        ("game/levels/deep/2.bin", .file(0o644)), ("game/art/a.png", .file(0o644)), ("game/art/x/y/z.png", .file(0o644)),
    ]

    /// The archive at `path` opened as one too large to hold its entries (only summarized).
    static func summarized(_ path: String) throws -> ZipArchive {
        var limits = ZipLimits.default
        limits.maxHeldDirectoryBytes = 0
        return try ZipArchive(path: path, limits: limits)
    }

    static func options(window: Int?, durable: Bool = false) -> ExpansionOptions {
        var options = ExpansionOptions(jobs: 2)
        options.durability = durable ? .flushOnCommit : .none
        options.testSeam.windowItems = window
        return options
    }

    /// Writes `app.zip` into `dir` and cancels its install into `out` (windows of 2, one job) after `files`
    /// files; returns the options it used.
    static func interruptedInstall(in dir: TemporaryDirectory, after files: Int,
                                   entries: [(name: String, kind: Kind)] = entries) throws -> ExpansionOptions {
        try write(entries, to: dir.file("app.zip"))
        var options = options(window: 2)
        options.jobs = 1
        let cancellation = ExpansionCancellation()
        let first = try AssetInstaller(source: ZipAssetSource(archive: try summarized(dir.file("app.zip"))),
                                       destination: dir.file("out"), options: options)
        let error = #expect(throws: AssetPackError.self) {
            try first.installSynchronously(progress: { if $0.filesWritten >= files { cancellation.cancel() } },
                                           cancellation: cancellation)
        }
        #expect(error?.code == .cancelled)
        return options
    }

    static func install(_ archive: String, into destination: String, options: ExpansionOptions,
                        limits: ZipLimits = .default) throws -> ExpansionResult {
        let source = ZipAssetSource(archive: try ZipArchive(path: archive, limits: limits))
        return try AssetInstaller(source: source, destination: destination, options: options).installSynchronously()
    }

    /// The record's text, after checking that each of its lists is in path order (``AssetPath/precedes(_:_:)``)
    /// whatever order the archive's windows came in.
    static func record(_ tree: String) throws -> String {
        let bytes = try recordBytes(ofTree: tree)
        let record = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        for list in ["files", "directories", "links"] {
            let paths = try #require(record[list] as? [[String: Any]]).map { Array(($0["path"] as? String ?? "").utf8) }
            for index in paths.indices.dropFirst() {
                #expect(AssetPath.precedes(paths[index - 1], paths[index]), "\(list) out of path order at \(index)")
            }
        }
        return try recordTextWithoutInodes(ofTree: tree)
    }

    @Test(arguments: [(1, false), (2, false), (5, true), (1_000, true)])
    func aWindowedArchiveInstallIsTheTreeAndIdentityOfAWholePlan(window: Int, durable: Bool) throws {
        let dir = try TemporaryDirectory("windowed-zip")
        try Self.write(Self.entries, to: dir.file("app.zip"))
        let whole = try Self.install(dir.file("app.zip"), into: dir.file("whole"), options: Self.options(window: nil, durable: durable))
        let windowed = try Self.install(dir.file("app.zip"), into: dir.file("windowed"), options: Self.options(window: window, durable: durable))
        #expect(DiskTree.read(dir.file("windowed")) == DiskTree.read(dir.file("whole")))
        #expect(DiskTree.read(dir.file("windowed"))?.files["game/levels/deep/2.bin"] != nil)
        #expect(windowed.identity == whole.identity && windowed.files == whole.files && windowed.bytes == whole.bytes)
        #expect(windowed.filesWritten == whole.filesWritten)
        #expect(try Self.record(dir.file("windowed")) == Self.record(dir.file("whole")))
        for (path, mode) in [("game/run.sh", 0o755), ("game/levels", 0o700), ("game/levels/3.json", 0o600)] {
            let found = try FileManager.default.attributesOfItem(atPath: dir.file("windowed/" + path))[.posixPermissions] as? Int
            #expect(found == mode, "\(path)")
        }
        #expect(hiddenNames(dir.path).isEmpty)
        // The stamp is the whole plan's: a whole plan of the same archive finds the tree up to date.
        try FileManager.default.removeItem(atPath: dir.file("windowed/.assetpack/source"))  // no fingerprint shortcut
        #expect(try Self.install(dir.file("app.zip"), into: dir.file("windowed"), options: Self.options(window: nil)).upToDate)
    }

    /// A durable windowed install whose flush is one `syncfs` runs it once, after the last window, not once a
    /// window with the writing stopped; it still runs before the stamp, and its failure fails the install
    /// (no stamp ever covers files not known to be on the device), which the next call finishes.
    @Test func aWindowedInstallFlushesTheFileSystemOnceAfterItsLastWindow() throws {
        let dir = try TemporaryDirectory("windowed-zip-syncfs")
        try Self.write(Self.entries, to: dir.file("app.zip"))
        var options = Self.options(window: 2, durable: true)
        options.testSeam.flushesWholeFileSystem = true
        let installed = try Self.install(dir.file("app.zip"), into: dir.file("flushed"), options: options)
        #expect(DiskTree.read(dir.file("flushed"))?.files["game/levels/deep/2.bin"] != nil)
        let written = Mutex(0)
        let fault = FaultInjection.Fault("syncfs", fails: .ioError, under: dir.file(""))
        let error = #expect(throws: AssetPackError.self) {
            try FaultInjection.with(fault) {
                let source = ZipAssetSource(archive: try ZipArchive(path: dir.file("app.zip")))
                _ = try AssetInstaller(source: source, destination: dir.file("failed"), options: options)
                    .installSynchronously(progress: { progress in written.withLock { $0 = max($0, progress.filesWritten) } })
            }
        }
        guard case .system(let call, let errno)? = error?.cause else { Issue.record("no system cause: \(String(describing: error))"); return }
        #expect(error?.code == .io && call == "syncfs" && errno == EIO)
        #expect(written.withLock { $0 } == installed.files, "every window was written before the one flush")
        // An I/O error leaves the staging tree for the next call (FailureCleanup), never recorded complete.
        #expect(!FileManager.default.fileExists(atPath: dir.file("failed")))
        #expect(hiddenNames(dir.path) == [".failed.assetpack-staging"])
        #expect(!FileManager.default.fileExists(atPath: dir.file(".failed.assetpack-staging/.assetpack/identity")))
        // The record goes to the device with the tree: written, and its temporary lists gone, before the flush.
        #expect(FileManager.default.fileExists(atPath: dir.file(".failed.assetpack-staging/.assetpack/installed.json.gz")))
        let again = try Self.install(dir.file("app.zip"), into: dir.file("failed"), options: options)
        #expect(again.identity == installed.identity && DiskTree.read(dir.file("failed")) == DiskTree.read(dir.file("flushed")))
        #expect(hiddenNames(dir.path).isEmpty)
    }

    /// A folder of the archive as the root (an APK's `assets/`): the windows take only what is below it; a
    /// root the archive does not have is the whole plan's error.
    @Test(arguments: ["game/levels", "game/art/", "missing"])
    func aRootFolderIsInstalledAWindowAtATime(root: String) throws {
        let dir = try TemporaryDirectory("windowed-zip-root")
        try Self.write(Self.entries, to: dir.file("app.zip"))
        let summarized = try Self.summarized(dir.file("app.zip"))
        func install(_ destination: String, window: Int?) throws -> ExpansionResult {
            let archive = window == nil ? try ZipArchive(path: dir.file("app.zip")) : summarized
            return try AssetInstaller(source: ZipAssetSource(archive: archive, root: root), destination: dir.file(destination),
                                      options: Self.options(window: window)).installSynchronously()
        }
        if root == "missing" {
            let whole = #expect(throws: AssetPackError.self) { try install("whole", window: nil) }
            let windowed = #expect(throws: AssetPackError.self) { try install("windowed", window: 2) }
            #expect(whole != nil && windowed?.message == whole?.message)
            #expect(hiddenNames(dir.path).isEmpty && !FileManager.default.fileExists(atPath: dir.file("windowed")))
            return
        }
        let whole = try install("whole", window: nil), windowed = try install("windowed", window: 2)
        #expect(DiskTree.read(dir.file("windowed")) == DiskTree.read(dir.file("whole")))
        #expect(windowed.identity == whole.identity && windowed.files == whole.files && whole.files > 0)
        #expect(!summarized.holdsEntries, "planned a window at a time")
    }

    /// In `bsdtar`'s order too the windows give the whole plan's tree, without falling back to it.
    @Test(arguments: [1, 3])
    func anArchiveInBreadthFirstOrderIsInstalledAWindowAtATime(window: Int) throws {
        let dir = try TemporaryDirectory("windowed-zip-bfs")
        try Self.write(Self.breadthFirst, to: dir.file("app.zip"))
        let archive = try Self.summarized(dir.file("app.zip"))
        let windowed = try AssetInstaller(source: ZipAssetSource(archive: archive), destination: dir.file("windowed"),
                                          options: Self.options(window: window)).installSynchronously()
        #expect(!archive.holdsEntries, "no whole plan")
        let whole = try Self.install(dir.file("app.zip"), into: dir.file("whole"), options: Self.options(window: nil))
        #expect(DiskTree.read(dir.file("windowed")) == DiskTree.read(dir.file("whole")))
        #expect(windowed.identity == whole.identity)
        #expect(try Self.record(dir.file("windowed")) == Self.record(dir.file("whole")))
    }

    /// An archive whose directory is larger than it may hold goes a window at a time by itself, and its
    /// entries are never read into memory: not to plan, write, record or fingerprint it.
    @Test func anArchiveTooLargeToHoldIsInstalledAWindowAtATimeWithoutItsEntries() throws {
        let dir = try TemporaryDirectory("windowed-zip-large")
        try Self.write(Self.entries, to: dir.file("app.zip"))
        let archive = try Self.summarized(dir.file("app.zip"))
        #expect(!archive.holdsEntries)
        let result = try AssetInstaller(source: ZipAssetSource(archive: archive), destination: dir.file("out"),
                                        options: Self.options(window: nil)).installSynchronously()
        #expect(!archive.holdsEntries)
        let again = try AssetInstaller(source: ZipAssetSource(archive: archive), destination: dir.file("out"),
                                       options: Self.options(window: nil)).installSynchronously()
        #expect(again.upToDate && !archive.holdsEntries)
        let whole = try Self.install(dir.file("app.zip"), into: dir.file("whole"), options: Self.options(window: nil))
        #expect(DiskTree.read(dir.file("out")) == DiskTree.read(dir.file("whole")))
        #expect(result.identity == whole.identity)
    }

    /// Interrupted, a windowed archive install is resumed by the next call, a window at a time again: the files
    /// the first call wrote are checked and kept, a file tampered with in staging is written again, strays planted
    /// there (at the top, deep in a folder, in a planned empty folder, a folder of their own) are removed, and the
    /// tree is exactly the archive's, in `zip -r`'s order and in `bsdtar`'s (folders stated before they are filled).
    @Test(arguments: [false, true])
    func anInterruptedWindowedArchiveInstallResumesWhatItWrote(breadthFirst: Bool) throws {
        let dir = try TemporaryDirectory("windowed-zip-resumed")
        let options = try Self.interruptedInstall(in: dir, after: 4, entries: breadthFirst ? Self.breadthFirst : Self.entries)
        let staging = dir.file(".out.assetpack-staging")
        let written = try #require(FileManager.default.subpathsOfDirectory(atPath: staging).filter {
            !$0.hasPrefix(".assetpack") && (try? FileManager.default.attributesOfItem(atPath: staging + "/" + $0)[.type] as? FileAttributeType) == .typeRegular
        }.sorted().first)
        try Data("tampered".utf8).write(to: URL(fileURLWithPath: staging + "/" + written))
        for stray in ["planted.txt", "game/levels/deep/planted.bin", "game/empty/planted", "game/planted/x.txt"] {
            try FileManager.default.createDirectory(atPath: staging + "/" + (stray as NSString).deletingLastPathComponent,
                                                    withIntermediateDirectories: true)
            try Data("stray".utf8).write(to: URL(fileURLWithPath: staging + "/" + stray))
        }
        let again = try AssetInstaller(source: ZipAssetSource(archive: try Self.summarized(dir.file("app.zip"))),
                                       destination: dir.file("out"), options: options).installSynchronously()
        #expect(again.filesResumed >= 2, "kept \(again.filesResumed)")
        let whole = try Self.install(dir.file("app.zip"), into: dir.file("whole"), options: Self.options(window: nil))
        #expect(DiskTree.read(dir.file("out")) == DiskTree.read(dir.file("whole")))
        #expect(again.identity == whole.identity)
        #expect(hiddenNames(dir.path).isEmpty)
    }

    /// Interrupted, a windowed archive install is started over by the next call, a window at a time again
    /// (the archive's entries are still not read into memory), when the archive changed in between:
    /// nothing the first call wrote is kept.
    @Test func anInterruptedWindowedArchiveInstallIsStartedOverAWindowAtATime() throws {
        let dir = try TemporaryDirectory("windowed-zip-interrupted")
        let options = try Self.interruptedInstall(in: dir, after: 3)
        #expect(hiddenNames(dir.path) == [".out.assetpack-staging"])
        // The archive changes: one file fewer, one more.
        try FileManager.default.removeItem(atPath: dir.file("app.zip"))
        try Self.write(Self.entries.filter { $0.name != "game/zeta.txt" } + [("game/new.txt", .file(0o644))], to: dir.file("app.zip"))
        let archive = try Self.summarized(dir.file("app.zip"))
        let events = LockedEvents()
        var installer = try AssetInstaller(source: ZipAssetSource(archive: archive), destination: dir.file("out"), options: options)
        installer.log = { events.add($0) }
        let again = try installer.installSynchronously()
        #expect(!archive.holdsEntries, "started over a window at a time")
        #expect(events.discarded)
        let whole = try Self.install(dir.file("app.zip"), into: dir.file("whole"), options: Self.options(window: nil))
        #expect(DiskTree.read(dir.file("out")) == DiskTree.read(dir.file("whole")))
        #expect(again.identity == whole.identity)
        #expect(hiddenNames(dir.path).isEmpty)
    }

    /// What the windows cannot decide is planned whole: a folder that comes back, a `.zip` to unzip.
    @Test(arguments: ["folder again", "nested zip"])
    func anArchiveTheWindowsCannotDecideIsPlannedWhole(_ case: String) throws {
        let dir = try TemporaryDirectory("windowed-zip-fallback")
        var entries = Self.entries
        if `case` == "folder again" {
            entries.append(("game/levels/4.json", .file(0o644)))
        } else {
            try ExpansionFixtures.zip(at: dir.file("inner.zip"), [("photos/frog.jpg", Array(repeating: 7, count: 3_000), .deflate)])
        }
        let writer = try ZipWriter(path: dir.file("app.zip"))
        for (name, kind) in entries {
            if case .folder(let mode) = kind { try writer.addDirectory(name, permissions: mode) } else {
                try writer.addFile(name, contents: Array(name.utf8))
            }
        }
        if `case` == "nested zip" { try writer.addFile("game/art/pack.zip", contents: try fileBytes(dir.file("inner.zip"))) }
        try writer.finish(sync: false)
        let windowed = try Self.install(dir.file("app.zip"), into: dir.file("windowed"), options: Self.options(window: 2))
        let whole = try Self.install(dir.file("app.zip"), into: dir.file("whole"), options: Self.options(window: nil))
        #expect(DiskTree.read(dir.file("windowed")) == DiskTree.read(dir.file("whole")))
        #expect(windowed.identity == whole.identity)
        #expect(try recordTextWithoutInodes(ofTree: dir.file("windowed")) == recordTextWithoutInodes(ofTree: dir.file("whole")))
        if `case` == "nested zip" { #expect(FileManager.default.fileExists(atPath: dir.file("windowed/game/art/photos/frog.jpg"))) }
        #expect(hiddenNames(dir.path).isEmpty)
    }

    /// A collision across windows, a bad name after some windows were written, a bookkeeping folder: the
    /// whole plan's error, and nothing left.
    @Test(arguments: ["collision", "unsafe name", "bookkeeping"])
    func aBadArchiveIsTheErrorOfTheWholePlanAndLeavesNothing(_ case: String) throws {
        let dir = try TemporaryDirectory("windowed-zip-bad")
        var entries = Self.entries
        switch `case` {
        case "collision": entries.append(("GAME/levels/1.json", .file(0o644)))
        case "unsafe name": entries.append(("game/../../evil.txt", .file(0o644)))
        default: entries.append((".assetpack/identity", .file(0o644)))
        }
        try Self.write(entries, to: dir.file("app.zip"))
        let whole = #expect(throws: AssetPackError.self) {
            try Self.install(dir.file("app.zip"), into: dir.file("whole"), options: Self.options(window: nil))
        }
        let windowed = #expect(throws: AssetPackError.self) {
            try Self.install(dir.file("app.zip"), into: dir.file("windowed"), options: Self.options(window: 2))
        }
        #expect(whole != nil)
        #expect(windowed?.code == whole?.code && windowed?.message == whole?.message)
        #expect(!FileManager.default.fileExists(atPath: dir.file("windowed")))
        #expect(hiddenNames(dir.path).isEmpty)
    }
}

/// Whether an install logged the removal of a staging tree.
private final class LockedEvents: @unchecked Sendable {
    private let lock = NSLock()
    private var sawDiscard = false
    func add(_ event: InstallEvent) {
        if case .stagingDiscarded = event { lock.withLock { sawDiscard = true } }
    }
    var discarded: Bool { lock.withLock { sawDiscard } }
}
