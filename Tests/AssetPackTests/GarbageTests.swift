import AssetPack
import AssetPackZip
import Foundation
import Testing
import TestSupport

/// Files that are not archives, or archives wrapped in junk: random bytes and empty files are a clear
/// `.archive` error naming the file; a maximal comment is harmless; a second archive hidden in the comment
/// is ignored (only the outer archive's entries appear).
@Suite struct GarbageTests {
    static let random: [UInt8] = { var random = SeededRandom(seed: 31); return random.bytes(100_000) }()

    @Test(arguments: [("random bytes", random), ("an empty file", []), ("a few bytes", Array("PK\u{5}\u{6}".utf8)),
                      ("text", Array("this is not a zip archive\n".utf8))], Placement.allCases)
    func isNotAnArchive(_ garbage: (String, [UInt8]), _ placement: Placement) throws {
        let stage = try HostileStage("garbage")
        let started = ContinuousClock.now
        let error = try stage.refuse(garbage.1, placement)
        #expect(ContinuousClock.now - started < .seconds(5))
        expectError(error, .archive, mentions: [stage.archivePath(placement).shown, "not a zip archive"])
        #expect(error?.zipError?.code == .format)
        stage.expectIntact()
    }

    @Test(arguments: Placement.allCases)
    func aMaximalJunkCommentIsHarmless(_ placement: Placement) throws {
        let stage = try HostileStage("garbage-comment")
        var comment = Array(Self.random.prefix(65_535))
        // Junk that looks like records: end-record and central-header signatures scattered through it.
        for offset in stride(from: 100, to: 65_000, by: 4_099) { comment.replaceSubrange(offset..<offset + 4, with: [0x50, 0x4B, 0x05, 0x06]) }
        for offset in stride(from: 2_000, to: 65_000, by: 5_003) { comment.replaceSubrange(offset..<offset + 4, with: [0x50, 0x4B, 0x01, 0x02]) }
        let path = stage.archivePath(placement).path
        try makeParent(path)
        try Data(rawZip([RawZip.file("real.txt", Array("real".utf8))], comment: comment)).write(to: URL(fileURLWithPath: path))
        let started = ContinuousClock.now
        let tree = try stage.accept(placement)
        #expect(ContinuousClock.now - started < .seconds(5))
        #expect(tree?.files == ["real.txt": Array("real".utf8)])
    }

    @Test(arguments: Placement.allCases)
    func anArchiveHiddenInTheCommentIsIgnored(_ placement: Placement) throws {
        let stage = try HostileStage("garbage-hidden")
        let hidden = rawZip([RawZip.file("../hidden-evil.txt", [6]), RawZip.file("hidden.txt", [6])])
        let path = stage.archivePath(placement).path
        try makeParent(path)
        try Data(rawZip([RawZip.file("outer.txt", Array("outer".utf8))], comment: hidden)).write(to: URL(fileURLWithPath: path))
        let tree = try stage.accept(placement)
        #expect(tree?.files == ["outer.txt": Array("outer".utf8)])
        #expect(!FileManager.default.fileExists(atPath: stage.scratch.file("out/hidden-evil.txt")))
    }

    @Test func aZipNamedFileThatIsNotAnArchiveInsideATreeIsAnErrorNotACopy() throws {
        // keepZips is the caller's way to copy .zip files as they are; without it, every .zip must unzip.
        let stage = try HostileStage("garbage-keep")
        try stage.scratch.write("tree/notes.zip", text: "just text")
        expectError(stage.refuse(.inTree), .archive, mentions: ["notes.zip", "not a zip archive"])
        stage.expectIntact()
        let tree = try stage.accept(.inTree, options: ExpansionOptions(keepZips: true))
        #expect(tree?.files == ["notes.zip": Array("just text".utf8)])
    }
}
