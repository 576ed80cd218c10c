import AssetPack
import Foundation
import Testing
import TestSupport
@testable import AssetPackPacker

/// The real round trip: the packer's bundle, expanded by the runtime's ``AssetInstaller``, is the source again.
@Suite struct InstallerRoundTripTests {
    @Test func folderBundleInstallsToTheSource() throws {
        let dir = try TemporaryDirectory("install")
        let src = try RoundTripTests.awkwardTree(dir)
        var random = SeededRandom(seed: 91)
        try dir.write("src/media/noise.bin", random.bytes(1_100_000))
        try build(src, dir.file("out"))
        let result = try AssetInstaller(source: AssetSources.open(path: dir.file("out"), root: nil),
                                        destination: dir.file("installed")).installSynchronously()
        #expect(!result.upToDate)
        #expect(try snapshot(dir.file("installed")) == snapshot(src))
    }

    @Test func archiveBundleInstallsToTheSource() throws {
        let dir = try TemporaryDirectory("install-archive")
        let src = try RoundTripTests.awkwardTree(dir)
        _ = try Packer().buildArchive(source: src, output: dir.file("all.zip"))
        try AssetInstaller(source: AssetSources.open(path: dir.file("all.zip"), root: nil),
                           destination: dir.file("installed")).installSynchronously()
        #expect(try snapshot(dir.file("installed")) == snapshot(src))
    }
}
