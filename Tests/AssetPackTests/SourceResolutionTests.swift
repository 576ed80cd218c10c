@testable import AssetPack
import AssetPackZip
import Foundation
import Testing
import TestSupport

/// A source is resolved once, from what it says about itself (`storage`), never from its type: a source
/// written outside the package that says where its files are gets the same fast paths as the built-in ones.
@Suite struct SourceResolutionTests {
    /// A source of an app's own, in front of another: it forwards `list` and `open`, counting the lists,
    /// and says the storage it is given.
    private final class OutsideSource: AssetSource, @unchecked Sendable {
        let inner: any AssetSource
        let storage: AssetStorage
        private let lock = NSLock()
        private var listCount = 0

        init(_ inner: any AssetSource, storage: AssetStorage) {
            self.inner = inner
            self.storage = storage
        }

        var name: String { "outside" }
        var lists: Int { lock.withLock { listCount } }

        func list(_ path: AssetPath) throws(AssetPackError) -> [String] {
            lock.withLock { listCount += 1 }
            return try inner.list(path)
        }

        func open(_ path: AssetPath) throws(AssetPackError) -> any ByteStream { try inner.open(path) }
    }

    private func kinds(_ plan: ExpansionPlan) -> [String] {
        plan.items.filter { $0.kind == .file }.map {
            switch $0.origin {
            case .none: "none"
            case .stream: "stream"
            case .localFile: "localFile"
            case .scannedEntry: "scannedEntry"
            case .zipEntry: "zipEntry"
            case .delivered: "delivered"
            }
        }
    }

    @Test func aFolderSaidAsSuchIsReadAsLocalFiles() throws {
        let scratch = try TemporaryDirectory("resolve-folder")
        try AssetTree.standard.write(to: scratch.file("tree"))
        let folder = DirectorySource(root: scratch.file("tree"))
        let outside = try ExpansionPlanner.plan(OutsideSource(folder, storage: .folder(root: scratch.file("tree"))))
        #expect(outside.folder == scratch.file("tree"))
        #expect(Set(kinds(outside)) == ["localFile"])
        #expect(outside.items.map(\.path) == (try ExpansionPlanner.plan(folder)).items.map(\.path))
        let opaque = try ExpansionPlanner.plan(OutsideSource(folder, storage: .opaque))
        #expect(opaque.folder == nil)
        #expect(Set(kinds(opaque)) == ["stream"])
        let installed = try AssetInstaller(source: OutsideSource(folder, storage: .folder(root: scratch.file("tree"))),
                                           destination: scratch.file("out"), options: ExpansionOptions(durability: .none)).installSynchronously()
        #expect(installed.filesWritten == AssetTree.standard.files.count)
        #expect(DiskTree.read(scratch.file("out"))?.files.filter { !$0.key.hasPrefix(".assetpack/") } == AssetTree.standard.files)
    }

    @Test func anArchiveSaidAsSuchIsPlannedFromItsCentralDirectory() throws {
        let scratch = try TemporaryDirectory("resolve-archive")
        try ExpansionFixtures.zip(at: scratch.file("app.zip"), [
            ("assets/a.txt", Array("a".utf8), .deflate), ("assets/d/b.txt", Array("bb".utf8), .stored),
            ("other.txt", Array("x".utf8), .stored),
        ])
        let zip = try ZipAssetSource(path: scratch.file("app.zip"), root: "assets")
        let outside = OutsideSource(zip, storage: zip.storage)
        let plan = try ExpansionPlanner.plan(outside)
        #expect(outside.lists == 0, "no walk")
        #expect(kinds(plan) == ["zipEntry", "zipEntry"])
        #expect(plan.items.map(\.path.string) == ["a.txt", "d", "d/b.txt"])
        #expect(plan.identity == (try ExpansionPlanner.plan(zip)).identity)
    }

    /// Planning reads the source through `list` and `open` only: an in-memory source needs no disk.
    @Test func anOpaqueSourceIsPlannedInMemory() throws {
        let source = AndroidLikeSource(files: ["a.txt": [1], "d/b.txt": [2, 3]], directories: ["empty"])
        let plan = try ExpansionPlanner.plan(source)
        #expect(plan.folder == nil)
        #expect(kinds(plan) == ["stream", "stream"])
        #expect(plan.items.map(\.path.string) == ["a.txt", "d", "d/b.txt", "empty"])
    }
}
