import AssetPack
import AssetPackZip
import Foundation
import Testing
import TestSupport

/// The README's "Use it in your app" code is `ReadmeAppSnippet.swift`, compiled with these tests: the
/// README block must be that file as it is, and the code must install a bundle as the README says.
@Suite struct ReadmeSnippetTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The Swift block that follows the line naming the snippet file in the README.
    static func readmeBlock() throws -> String {
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let marker = "<!-- Tests/AssetPackTests/ReadmeAppSnippet.swift -->\n```swift\n"
        let start = try #require(readme.range(of: marker), "the README has no snippet marker")
        let end = try #require(readme.range(of: "\n```\n", range: start.upperBound..<readme.endIndex))
        return String(readme[start.upperBound..<end.lowerBound]) + "\n"
    }

    @Test func theReadmeShowsTheCompiledSnippetAsItIs() throws {
        let file = try String(contentsOf: Self.root.appendingPathComponent("Tests/AssetPackTests/ReadmeAppSnippet.swift"),
                              encoding: .utf8)
        #expect(try Self.readmeBlock() == file)
    }

    @Test func theSnippetInstallsTheBundleOnceAndShowsProgress() async throws {
        let scratch = try TemporaryDirectory("readme-snippet")
        try ExpansionFixtures.bundle(.standard, packed: ["big.bin": .deflate], at: scratch.file("App/assets.bundle"), scratch: scratch)
        let app = try #require(Bundle(path: scratch.file("App")))
        let shown = Lines()
        let first = try await installAssets(from: app, into: scratch.url("Assets")) { shown.append("\($0) \($1)") }
        #expect(!first.upToDate)
        #expect(DiskTree.read(scratch.file("Assets")) == DiskTree(.standard))
        #expect(shown.all.first == "Checking the assets… 0.0" && shown.all.last == "Finishing… 1.0")
        #expect(shown.all.contains("Installing the assets… 1.0"))
        let second = try await installAssets(from: app, into: scratch.url("Assets"))
        #expect(second.upToDate)
    }
}

final class Lines: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    func append(_ line: String) { lock.lock(); lines.append(line); lock.unlock() }
    var all: [String] { lock.lock(); defer { lock.unlock() }; return lines }
}
