import AssetPackZip
import Foundation
import Testing
import TestSupport
@testable import AssetPack
@testable import AssetPackPacker

/// ``BundleVerification`` takes the manifest a window of files at a time, as the expander does, and still
/// refuses what the whole-manifest view refused: files that differ, storage the bundle lacks, names listed twice.
@Suite struct BundleVerificationTests {
    /// 36 small files in three folders and one at the top (gathered into pack archives), a random file under
    /// the packing threshold (plain) and a text over it (packed in an archive of its own).
    static func bundle(_ dir: TemporaryDirectory) throws -> String {
        var random = SeededRandom(seed: 41)
        for folder in ["a", "b", "b/c"] {
            for index in 0..<12 { try dir.write("src/\(folder)/f\(index).txt", random.text(200 + index * 50)) }
        }
        try dir.write("src/big.bin", random.bytes(300_000))
        try dir.write("src/huge.txt", random.text(1_200_000))
        try dir.write("src/z.txt", text: "last")
        _ = try Packer(options: BuildOptions()).build(source: dir.file("src"), output: dir.file("out"))
        return dir.file("out")
    }

    @Test func windowsOfAFewFilesVerifyWhatTheWholeManifestDoes() throws {
        let dir = try TemporaryDirectory("verify-windows")
        let bundle = try Self.bundle(dir)
        let whole = try BundleVerification.verify(DirectorySource(root: bundle), windowItems: 1_000)
        #expect(whole.files == 39 && whole.bytes > 1_500_000 && whole.archives >= 2)
        for size in [1, 5, 13] {
            #expect(try BundleVerification.verify(DirectorySource(root: bundle), windowItems: size) == whole, "windows of \(size)")
        }
    }

    @Test func aChangedFileInALaterWindowIsNamed() throws {
        let dir = try TemporaryDirectory("verify-windows-bad")
        let bundle = try Self.bundle(dir)
        var bytes = try fileBytes(bundle + "/big.bin")
        bytes[123_456] ^= 0x01
        try Data(bytes).write(to: URL(fileURLWithPath: bundle + "/big.bin"))
        let error = expectError { _ = try BundleVerification.verify(DirectorySource(root: bundle), windowItems: 5) }
        #expect(error?.code == .verification)
        #expect(error?.path?.hasSuffix("out: big.bin") == true, "\(String(describing: error))")
    }

    @Test func storageTheBundleLacksIsTheManifestsFault() throws {
        let dir = try TemporaryDirectory("verify-missing")
        let bundle = try Self.bundle(dir)
        try FileManager.default.moveItem(atPath: bundle + "/big.bin", toPath: dir.file("big.bin"))
        let plain = expectError { _ = try BundleVerification.verify(DirectorySource(root: bundle)) }
        #expect(plain?.code == .manifest)
        #expect(plain?.message.contains("stores it at \"big.bin\", which the bundle lacks") == true, "\(String(describing: plain))")

        try FileManager.default.moveItem(atPath: dir.file("big.bin"), toPath: bundle + "/big.bin")
        let packed = try #require(try readManifest(bundle).entries.first { $0.path == "z.txt" }?.storage?.file)
        try FileManager.default.removeItem(atPath: bundle + "/" + packed)
        let archive = expectError { _ = try BundleVerification.verify(DirectorySource(root: bundle)) }
        #expect(archive?.code == .manifest)
        #expect(archive?.message.contains("which the bundle lacks") == true, "\(String(describing: archive))")
    }

    @Test func aPathListedTwiceIsRefused() throws {
        let dir = try TemporaryDirectory("verify-twice")
        let bundle = try Self.bundle(dir)
        var forged = try readManifest(bundle)
        let index = try #require(forged.entries.firstIndex { $0.path == "a/f3.txt" })
        forged.entries.insert(forged.entries[index], at: index)
        forged.identity = ContentIdentity.of(forged.entries)
        try ManifestHashTests.replaceManifest(of: bundle, with: forged)
        for size in [2, 1_000] {
            let error = expectError { _ = try BundleVerification.verify(DirectorySource(root: bundle), windowItems: size) }
            #expect(error?.message.contains("a/f3.txt") == true, "\(String(describing: error))")
            #expect(error?.code == .conflict || error?.code == .manifest, "\(String(describing: error))")
        }
    }

    @Test func aManifestLaidOutByAnotherToolIsVerifiedWhole() throws {
        let dir = try TemporaryDirectory("verify-relaid")
        let bundle = try Self.bundle(dir)
        let expected = try BundleVerification.verify(DirectorySource(root: bundle))
        let path = bundle + "/" + BundleManifest.path
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path)))
        try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted]).write(to: URL(fileURLWithPath: path))
        #expect(try BundleVerification.verify(DirectorySource(root: bundle), windowItems: 3) == expected)
    }
}
