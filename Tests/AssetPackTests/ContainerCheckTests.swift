import AssetPack
import AssetPackZip
import Foundation
import Testing
import TestSupport

/// ``ContainerCheck`` on containers written here: bundles found at any depth under both names, each
/// question answered from the central directories, and each way a container can disagree with its
/// manifest reported with the entry it concerns. (Real aapt APKs: `AssetPackAndroidTests`.)
@Suite struct ContainerCheckTests {
    /// A bundle of the standard tree with `big.bin` packed (deflated) and `nested/deeper/x.bin` packed stored.
    private func bundle(_ scratch: TemporaryDirectory) throws -> PackedBundle {
        try PackedBundle(.standard, packed: ["big.bin": .deflate, "nested/deeper/x.bin": .stored], scratch: scratch)
    }

    /// Writes a container holding `bundles` (folder → bundle files): archives stored, other files deflated,
    /// stored data aligned to `alignment` (0: as it falls). `extra` files go in as they are.
    private func container(_ path: String, _ bundles: [String: [String: [UInt8]]], alignment: Int = 4,
                           archiveMethod: CompressionMethod = .stored, extra: [String: [UInt8]] = [:]) throws -> String {
        let writer = try ZipWriter(path: path, options: .deterministic(storedAlignment: alignment))
        for (name, bytes) in extra.sorted(by: { $0.key < $1.key }) { try writer.addFile(name, contents: bytes) }
        for (root, files) in bundles.sorted(by: { $0.key < $1.key }) {
            for (file, bytes) in files.sorted(by: { $0.key < $1.key }) {
                let method: CompressionMethod = file.hasSuffix(".zip") ? archiveMethod : .deflate
                try writer.addFile(root.isEmpty ? file : root + "/" + file, contents: bytes, method: method)
            }
        }
        try writer.finish(sync: false)
        return path
    }

    @Test func aGoodContainerPassesAndItsBundlesAreFoundAtAnyDepth() throws {
        let scratch = try TemporaryDirectory("check-good")
        let files = try bundle(scratch).files
        var hidden: [String: [UInt8]] = [:]
        for (path, bytes) in files {
            hidden[path.hasPrefix(BundleManifest.reservedDirectory + "/") ? ".assetpack" + path.dropFirst(BundleManifest.reservedDirectory.count) : path] = bytes
        }
        // A folder whose bookkeeping is under `.assetpack` (the install record's name) is no bundle.
        let path = try container(scratch.file("c.zip"), ["": files, "deep/er/other.bundle": files, "deep/old.bundle": hidden])
        let check = try ContainerCheck(path: path)
        #expect(check.passed, "\(check.problems)")
        #expect(check.bundles.map(\.root) == ["", "deep/er/other.bundle"])
        #expect(check.bundles.map(\.manifest) == ["assetpack-meta/manifest.json", "deep/er/other.bundle/assetpack-meta/manifest.json"])
        #expect(check.bundles.map(\.layout) == [.zip, .zip])
        #expect(check.bundles[0].archives == ["big.bin.zip", "nested/deeper/x.bin.zip"])
        #expect(check.bundles[0].files == AssetTree.standard.files.count)
        #expect(check.bundles[0].alignedEntries == 2, "the two stored archives")
    }

    @Test func aContainerWithoutABundleFails() throws {
        let scratch = try TemporaryDirectory("check-none")
        let check = try ContainerCheck(path: try container(scratch.file("c.zip"), [:], extra: ["a.txt": [1, 2, 3]]))
        #expect(!check.passed && check.bundles.isEmpty)
        #expect(check.problems.map(\.kind) == [.noBundle])
        #expect(check.problems.first?.description == scratch.file("c.zip")
                + ": holds no assetpack bundle (no assetpack-meta/manifest.json at any depth)")
    }

    @Test func aDeflatedArchiveAndMisalignedDataAreReported() throws {
        let scratch = try TemporaryDirectory("check-stored")
        let files = try bundle(scratch).files
        let deflated = ContainerCheck(archive: try ZipArchive(path: try container(scratch.file("d.zip"), ["b": files], archiveMethod: .deflate)))
        #expect(deflated.problems.map(\.kind) == [.recompressed, .recompressed])
        #expect(deflated.problems.map(\.path) == ["b/big.bin.zip", "b/nested/deeper/x.bin.zip"])
        #expect(deflated.bundles[0].matches, "the archives are still read (spooled) and match")
        let paged = try ContainerCheck(path: try container(scratch.file("p.zip"), ["b": files], alignment: 4096),
                                       options: ContainerCheck.Options(alignment: 4096))
        #expect(paged.passed, "\(paged.problems)")
        let unaligned = try ContainerCheck(path: try container(scratch.file("u.zip"), ["b": files], alignment: 0),
                                           options: ContainerCheck.Options(alignment: 4096))
        #expect(unaligned.problems.map(\.kind) == [.misaligned, .misaligned])
        #expect(unaligned.problems.allSatisfy { $0.message.hasSuffix("not a multiple of 4096, so it cannot be mapped in place (zipalign 4096)") })
    }

    @Test func everyDisagreementWithTheManifestNamesTheEntry() throws {
        let scratch = try TemporaryDirectory("check-matches")
        let packed = try bundle(scratch)
        var files = packed.files
        files["a.txt"] = Array("HELLO, ASSETS\n".utf8)  // the same size, other bytes
        files["README"] = nil
        let writer = try ZipWriter(path: scratch.file("x.zip"), options: .deterministic())
        try writer.addFile("x.bin", contents: Array(repeating: 7, count: 5000), method: .stored)  // same size, other bytes
        try writer.finish(sync: false)
        files["nested/deeper/x.bin.zip"] = Array(try Data(contentsOf: URL(fileURLWithPath: scratch.file("x.zip"))))
        let check = try ContainerCheck(path: try container(scratch.file("c.zip"), ["b": files]))
        let original = try #require(packed.files["a.txt"])
        let changed = try #require(files["a.txt"])
        let expectedEntry = try #require(packed.manifest.entries.first { $0.path == "nested/deeper/x.bin" })
        #expect(check.problems.map(\.description) == [
            "b/README: is listed in the manifest but missing from the container",
            "b/a.txt: has CRC-32 \(hex(CRC32.checksum(changed))), the manifest records \(hex(CRC32.checksum(original)))",
            "b/nested/deeper/x.bin.zip: entry \"x.bin\" has CRC-32 \(hex(CRC32.checksum(Array(repeating: 7, count: 5000)))), "
                + "the manifest records \(hex(expectedEntry.crc32 ?? 0))",
        ])
        #expect(check.bundles[0].stored && check.bundles[0].aligned && !check.bundles[0].matches)
    }

    @Test func aRebuiltArchiveNoLongerFitsItsBlockIndex() throws {
        let scratch = try TemporaryDirectory("check-blocks")
        var packed = try bundle(scratch)
        var manifest = packed.manifest
        let index = try #require(manifest.entries.firstIndex { $0.path == "big.bin" })
        manifest.entries[index].storage?.blocks = [[0, 0]]
        manifest.entries[index].storage?.compressedSize? += 1
        packed.files[BundleManifest.path] = try manifest.encodedJSON()  // the identity covers no storage
        let check = try ContainerCheck(path: try container(scratch.file("c.zip"), ["b": packed.files]))
        let compressed = (packed.manifest.entries[index].storage?.compressedSize ?? 0)
        #expect(check.problems.map(\.description) == [
            "b/big.bin.zip: entry \"big.bin\" has \(compressed) compressed bytes; the manifest's block index was cut for "
                + "\(compressed + 1) (the archive was rebuilt)",
        ])
    }

    @Test func aManifestThatDisagreesWithItsIdentityFileIsOneProblem() throws {
        let scratch = try TemporaryDirectory("check-identity")
        var files = try bundle(scratch).files
        files[BundleManifest.identityPath] = Array("0000".utf8)
        let check = try ContainerCheck(path: try container(scratch.file("c.zip"), ["b": files]))
        #expect(check.problems.map(\.description) == ["b/assetpack-meta/manifest.json: assetpack-meta/identity disagrees with the manifest's identity"])
        #expect(check.bundles[0].files == 0 && !check.bundles[0].matches)
    }

    @Test func layoutsDecideWhatIsChecked() throws {
        let scratch = try TemporaryDirectory("check-layouts")
        let files = try bundle(scratch).files
        let manifest = Array("<manifest/>".utf8)
        let aab = try ContainerCheck(path: try container(scratch.file("app.aab"), ["base/assets/b": files], alignment: 0,
                                                         archiveMethod: .deflate, extra: ["base/manifest/AndroidManifest.xml": manifest]))
        #expect(aab.bundles.map(\.layout) == [.appBundle])
        #expect(aab.problems.map(\.kind) == [.recompressed, .recompressed], "stored is checked, alignment is bundletool's")
        let ipa = try ContainerCheck(path: try container(scratch.file("app.ipa"), ["Payload/App.app/b": files], alignment: 0,
                                                         archiveMethod: .deflate))
        #expect(ipa.bundles.map(\.layout) == [.ipa])
        #expect(ipa.passed, "an IPA is unpacked at install: only the files are compared")
        let apk = try ContainerCheck(path: try container(scratch.file("app.apk"), ["assets": files], extra: ["AndroidManifest.xml": manifest]))
        #expect(apk.bundles.map(\.layout) == [.apk] && apk.passed)
    }
}
