import AssetPack
import AssetPackZip
import Foundation
import Testing
import TestSupport
@testable import AssetPackPacker

/// A delivered bundle's manifest held in scratch space (``DiscardableManifest``, as the remote install's spool)
/// is dropped once the whole install is planned and before the tree's record is written and flushed, so that a
/// flush of the file system does not write it; an install that fails before it has planned keeps it.
@Suite struct DiscardedManifestTests {
    /// The bundle's manifest file, noting when it is discarded whether the staging tree's record existed then.
    final class ScratchManifest: DiscardableManifest, @unchecked Sendable {
        let file: FileSource
        let stagingRecord: String
        private let lock = NSLock()
        private var discards: [Bool] = []

        init(path: String, stagingRecord: String) throws {
            file = try FileSource(path: path)
            self.stagingRecord = stagingRecord
        }

        var size: UInt64 { file.size }
        var name: String { file.name }
        func read(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) throws(ZipError) -> Int {
            try file.read(into: buffer, at: offset)
        }

        func discard() {
            let recordExisted = FileManager.default.fileExists(atPath: stagingRecord)
            lock.withLock { discards.append(recordExisted) }
        }

        /// For each call of ``discard()``: whether the staging tree's record existed then.
        var calls: [Bool] { lock.withLock { discards } }
    }

    static func source(_ bundle: String, installedTree: String?, _ dir: TemporaryDirectory,
                       delivery: any BundleDelivery) throws -> (DeliveredBundleSource, ScratchManifest) {
        let record = dir.file("installed/.assets.assetpack-staging/.assetpack/installed.json.gz")
        let manifest = try ScratchManifest(path: bundle + "/" + BundleManifest.path, stagingRecord: record)
        let source = DeliveredBundleSource(manifest: manifest, identity: try readManifest(bundle).identity,
                                           delivery: delivery, installedTree: installedTree)
        return (source, manifest)
    }

    @Test(arguments: [Durability.flushOnCommit, .none])
    func anInstallAndAnUpgradeDropTheManifestOnceBeforeTheRecordIsWritten(_ durability: Durability) throws {
        let dir = try TemporaryDirectory("discarded-manifest")
        let (source, bundle, _) = try DeliveryGroupTests.bundle(dir)
        let destination = dir.file("installed/assets")
        for round in 0..<2 {
            if round == 1 {
                try dir.write("src/d0/f0.txt", text: "changed")
                var rules = PackingRules()
                rules.packSize = 64 << 10  // as DeliveryGroupTests built it
                _ = try Packer(options: BuildOptions(rules: rules)).build(source: source, output: bundle)
            }
            let (delivered, manifest) = try Self.source(bundle, installedTree: round == 1 ? destination : nil, dir,
                                                        delivery: FolderDelivery(root: bundle))
            let result = try AssetInstaller(source: delivered, destination: destination,
                                            options: ExpansionOptions(durability: durability)).installSynchronously()
            #expect(!result.upToDate)
            #expect(manifest.calls == [false], "discarded once, before the staging tree's record was written")
            #expect(try snapshot(destination) == snapshot(source))
        }
    }

    @Test func anInstallThatFailsWhileItFetchesKeepsTheManifest() throws {
        let dir = try TemporaryDirectory("discarded-manifest-failed")
        let (_, bundle, _) = try DeliveryGroupTests.bundle(dir)
        let delivery = FolderDelivery(root: bundle, damaging: 1000)
        let (delivered, manifest) = try Self.source(bundle, installedTree: nil, dir, delivery: delivery)
        #expect(throws: AssetPackError.self) {
            try AssetInstaller(source: delivered, destination: dir.file("installed/assets"),
                               options: ExpansionOptions(durability: .none)).installSynchronously()
        }
        #expect(manifest.calls.isEmpty)
    }
}
