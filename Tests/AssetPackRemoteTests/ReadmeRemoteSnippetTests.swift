import AssetPack
import Foundation
import Testing
import TestSupport

/// The README's "Delivery from a server" code is `ReadmeRemoteSnippet.swift`, compiled with these tests: the
/// README block must be that file as it is, and the code must install and update a bundle from nginx.
@Suite struct ReadmeRemoteSnippetTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test func theReadmeShowsTheCompiledSnippetAsItIs() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let marker = "<!-- Tests/AssetPackRemoteTests/ReadmeRemoteSnippet.swift -->\n```swift\n"
        let start = try #require(readme.range(of: marker), "the README has no snippet marker")
        let end = try #require(readme.range(of: "\n```\n", range: start.upperBound..<readme.endIndex))
        let file = try String(contentsOf: Self.root.appendingPathComponent("Tests/AssetPackRemoteTests/ReadmeRemoteSnippet.swift"),
                              encoding: .utf8)
        #expect(String(readme[start.upperBound..<end.lowerBound]) + "\n" == file)
    }

    @Test func theSnippetInstallsThenUpdatesOnlyWhatChanged() async throws {
        let fixture = try await RemoteInstallFixture()
        try fixture.publish(RemoteInstallFixture.tree(version: 1))
        let key = fixture.scratch.file("release.key.pub")
        try RemoteInstallFixture.key.publicKey.write(to: key)
        let destination = URL(fileURLWithPath: fixture.destination)
        #expect(try await !updateAssets(from: fixture.url, into: destination, publicKeyFile: key).upToDate)
        let version2 = RemoteInstallFixture.tree(version: 2)
        try fixture.publish(version2)
        let update = try await updateAssets(from: fixture.url, into: destination, publicKeyFile: key)
        #expect(update.filesLinked == version2.count - 2)
        #expect(try snapshot(fixture.destination) == expectedSnapshot(version2))
        #expect(try await updateAssets(from: fixture.url, into: destination, publicKeyFile: key).upToDate)
    }
}
