import AssetPack
import AssetPackZip
import Foundation
import Testing
import TestSupport

/// The `URL` forms of the initializers that take paths.
@Suite struct URLOverloadTests {
    @Test func everySourceAndTheInstallerTakeFileURLs() async throws {
        let scratch = try TemporaryDirectory("url-overloads")
        try AssetTree.standard.write(to: scratch.file("tree"))
        try ExpansionFixtures.zip(at: scratch.file("app.zip"), [("assets/one.txt", Array("one".utf8), .deflate)])
        let folder = scratch.url("tree")

        let sources: [any AssetSource] = [
            try DirectorySource(root: folder),
            try BundleSource(url: folder),
            try AssetSources.open(url: folder, root: nil),
        ]
        for (index, source) in sources.enumerated() {
            let installer = try AssetInstaller(source: source, destination: scratch.url("out\(index)"))
            #expect(installer.destination == scratch.file("out\(index)"))
            #expect(installer.destinationURL.path == scratch.file("out\(index)"))
            try await installer.install()
            #expect(DiskTree.read(scratch.file("out\(index)")) == DiskTree(.standard), "\(type(of: source))")
        }
        let zip = try ZipAssetSource(url: scratch.url("app.zip"), root: "assets")
        try await AssetInstaller(source: zip, destination: scratch.url("zip")).install()
        #expect(DiskTree.read(scratch.file("zip"))?.files == ["one.txt": Array("one".utf8)])
    }

    @Test func aURLThatIsNotAFileURLIsRefused() throws {
        let web = try #require(URL(string: "https://example.com/assets"))
        let errors: [AssetPackError?] = [
            #expect(throws: AssetPackError.self) { try DirectorySource(root: web) },
            #expect(throws: AssetPackError.self) { try BundleSource(url: web) },
            #expect(throws: AssetPackError.self) { try ZipAssetSource(url: web) },
            #expect(throws: AssetPackError.self) { try AssetInstaller(source: DirectorySource(root: "/tmp"), destination: web) },
        ]
        for error in errors {
            #expect(error?.code == .invalidArgument)
            #expect(error?.description == "https://example.com/assets: is not a file URL; give the URL of a file or folder")
        }
    }
}
