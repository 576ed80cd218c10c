import Foundation
import Testing
import TestSupport

/// A run killed in the middle of a large block-indexed file: the next run continues that file from the
/// blocks it finished (their bytes are read back and checked, not inflated again), and a continued file
/// whose kept blocks were damaged is written again from the start — the result is the source either way.
@Suite struct BlockResumeCLITests {
    let tool = builtProduct("assetpack")

    /// A 40 MiB file (ten 4 MiB blocks) and a small one.
    static let tree: ExpandCLITests.Files = {
        var random = SeededRandom(seed: 77)
        return ["big/level.bin": random.text(40 << 20), "small.txt": Array("small\n".utf8)]
    }()

    /// The `--json` summary of a finished expansion.
    struct Summary: Decodable {
        var bytes: UInt64
        var bytesWritten: UInt64
        var bytesResumed: UInt64
    }

    private func buildBundle(_ scratch: TemporaryDirectory) throws -> String {
        try ExpandCLITests.write(Self.tree, to: scratch.file("tree"))
        let built = try run(tool, ["build", scratch.file("tree"), "-o", scratch.file("bundle")])
        #expect(built.status == 0, "\(built.stderr)")
        let manifest = try String(contentsOfFile: scratch.file("bundle/assetpack-meta/manifest.json"), encoding: .utf8)
        #expect(manifest.contains("\"blocks\""), "the packer recorded a block index for the large file")
        return scratch.file("bundle")
    }

    private func killHalfway(_ bundle: String, to destination: String) throws {
        let killed = try run(tool, ["expand", bundle, "--to", destination, "--jobs", "2"],
                             environment: ["ASSETPACK_TEST_KILL_AFTER_BYTES": String(20 << 20)])
        #expect(killed.status == 128 + 9, "\(killed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: destination))
    }

    private func finish(_ bundle: String, to destination: String) throws -> Summary {
        let resumed = try run(tool, ["expand", bundle, "--to", destination, "--json"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(ExpandCLITests.digest(ExpandCLITests.read(destination)) == ExpandCLITests.digest(Self.tree))
        return try JSONDecoder().decode(Summary.self, from: Data(resumed.stdout.utf8))
    }

    @Test func aKilledRunIsContinuedMidFile() throws {
        let scratch = try TemporaryDirectory("cli-block-resume")
        let bundle = try buildBundle(scratch)
        let destination = scratch.file("assets")
        try killHalfway(bundle, to: destination)
        let staged = try FileManager.default.contentsOfDirectory(atPath: scratch.file(".assets.assetpack-staging/big"))
        #expect(staged.contains(".assetpack-tmp-blocks-level.bin"), "the journal is there: \(staged)")
        let summary = try finish(bundle, to: destination)
        #expect(summary.bytesResumed >= 8 << 20, "at least two 4 MiB blocks are kept")
        #expect(summary.bytesResumed < 40 << 20)
        #expect(summary.bytesWritten + summary.bytesResumed == summary.bytes)
        let left = try FileManager.default.contentsOfDirectory(atPath: destination + "/big")
        #expect(left == ["level.bin"], "no journal is left in the tree")
    }

    @Test func damagedKeptBlocksAreWrittenAgain() throws {
        let scratch = try TemporaryDirectory("cli-block-resume-damaged")
        let bundle = try buildBundle(scratch)
        let destination = scratch.file("assets")
        try killHalfway(bundle, to: destination)
        // Damage the staged file where every block starts: as if the machine lost data the journal names.
        let partial = try FileHandle(forUpdating: URL(fileURLWithPath: scratch.file(".assets.assetpack-staging/big/level.bin")))
        let size = try partial.seekToEnd()
        for offset in stride(from: UInt64(0), to: size, by: 4 << 20) {
            try partial.seek(toOffset: offset)
            try partial.write(contentsOf: Data("damaged".utf8))
        }
        try partial.close()
        let summary = try finish(bundle, to: destination)
        #expect(summary.bytesResumed <= UInt64(Self.tree["small.txt"]!.count), "nothing of the large file is kept")
        #expect(summary.bytesWritten + summary.bytesResumed == summary.bytes)
    }
}
