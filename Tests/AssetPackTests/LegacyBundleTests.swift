import AssetPack
import AssetPackZip
import Foundation
import Testing
import TestSupport

/// Bundles built before the bookkeeping folder was renamed keep it as `.assetpack/`: every reader looks
/// for `assetpack-meta/` first, then for `.assetpack/`, and hides both from the logical tree.
@Suite struct LegacyBundleTests {
    /// A packed bundle at `scratch/bundle` whose bookkeeping folder is renamed to the legacy `.assetpack`.
    private func legacyBundle(_ scratch: TemporaryDirectory) throws -> PackedBundle {
        let bundle = try ExpansionFixtures.bundle(.standard, packed: ["big.bin": .deflate], at: scratch.file("bundle"), scratch: scratch)
        try FileManager.default.moveItem(atPath: scratch.file("bundle/assetpack-meta"), toPath: scratch.file("bundle/.assetpack"))
        return bundle
    }

    @Test func aLegacyBundleFolderIsPlannedFromItsManifestAndUpToDateFromItsIdentity() throws {
        let scratch = try TemporaryDirectory("legacy-folder")
        let bundle = try legacyBundle(scratch)
        let located = try #require(try BundleManifest.locate(in: DirectorySource(root: scratch.file("bundle"))))
        #expect(located.isLegacy && located.path == ".assetpack/manifest.json" && located.manifest == bundle.manifest)
        let source = CallCountingSource(DirectorySource(root: scratch.file("bundle")))
        let plan = try ExpansionPlanner.plan(source)
        #expect(plan.usesManifest && source.lists == 0)
        #expect(try AssetWalker(try AssetSources.view(of: DirectorySource(root: scratch.file("bundle")))).walk().allSatisfy {
            !$0.path.string.hasPrefix(".assetpack")
        })
        let destination = scratch.file("assets")
        let first = try AssetInstaller(source: DirectorySource(root: scratch.file("bundle")), destination: destination).installSynchronously()
        #expect(!first.upToDate && first.identity == "assetpack-1 manifest \(bundle.manifest.identity)")
        #expect(DiskTree.read(destination) == DiskTree(.standard))
        let counting = CallCountingSource(DirectorySource(root: scratch.file("bundle")))
        #expect(try AssetInstaller(source: counting, destination: destination).installSynchronously().upToDate)
        #expect(counting.lists == 0)
        #expect(counting.opens == ["assetpack-meta/identity", ".assetpack/identity"], "the new name first, then the legacy one")
    }

    @Test func aLegacyIdentityFileMustAgreeWithItsManifest() throws {
        let scratch = try TemporaryDirectory("legacy-identity")
        _ = try legacyBundle(scratch)
        try scratch.write("bundle/.assetpack/identity", text: "0000")
        let error = #expect(throws: AssetPackError.self) { try BundleManifest.read(from: DirectorySource(root: scratch.file("bundle"))) }
        #expect(error?.code == .manifest)
        #expect(error?.message == ".assetpack/identity disagrees with the manifest's identity")
        #expect(error?.path == scratch.file("bundle") + ": .assetpack/manifest.json")
    }

    @Test func theNewNameIsReadWhenBothAreThere() throws {
        let scratch = try TemporaryDirectory("legacy-both")
        let bundle = try ExpansionFixtures.bundle(.standard, packed: [:], at: scratch.file("bundle"), scratch: scratch)
        try scratch.write("bundle/.assetpack/manifest.json", text: "not json")
        let located = try #require(try BundleManifest.locate(in: DirectorySource(root: scratch.file("bundle"))))
        #expect(!located.isLegacy && located.path == "assetpack-meta/manifest.json" && located.manifest == bundle.manifest)
    }

    @Test func aLegacyBundleArchiveIsPlannedFromItsManifestWithTheFolderHidden() throws {
        let scratch = try TemporaryDirectory("legacy-archive")
        let bundle = try legacyBundle(scratch)
        let writer = try ZipWriter(path: scratch.file("bundle.zip"))
        for (path, bytes) in try bundleFiles(scratch.file("bundle")) { try writer.addFile(path, contents: bytes) }
        try writer.finish(sync: false)
        let source = try ZipAssetSource(path: scratch.file("bundle.zip"))
        let plan = try ExpansionPlanner.plan(source)
        #expect(plan.usesManifest && plan.identity == bundle.manifest.identity)
        #expect(!plan.items.contains { $0.path.string.hasPrefix(".assetpack") })
        #expect(try AssetWalker(source).walk().allSatisfy { !$0.path.string.hasPrefix(".assetpack") }, "a walk skips it too")
    }

    /// Every regular file below `root`, by relative path.
    private func bundleFiles(_ root: String) throws -> [(String, [UInt8])] {
        let paths = try FileManager.default.subpathsOfDirectory(atPath: root).sorted()
        return try paths.compactMap { path in
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: root + "/" + path, isDirectory: &isDirectory)
            return isDirectory.boolValue ? nil : (path, Array(try Data(contentsOf: URL(fileURLWithPath: root + "/" + path))))
        }
    }
}
