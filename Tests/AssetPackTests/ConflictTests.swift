import AssetPack
import AssetPackZip
import Foundation
import Testing
import TestSupport

/// Two entries that would land on one place: exact duplicates, names equal up to case or Unicode
/// normalization (one file on Apple's file systems), and a file that is also a folder. Each fails with
/// `.conflict` naming both entries and the archive, while planning — nothing is staged — both for an
/// archive inside a tree and for the archive given as the source (whose index would otherwise keep only
/// the first of two equal names).
@Suite struct ConflictTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let label: String
        let entries: [RawZip.Entry]
        let mentions: [String]
        var testDescription: String { label }
    }

    static let cases: [Case] = [
        Case(label: "duplicate name", entries: [RawZip.file("a.txt", [1]), RawZip.file("a.txt", [2])],
             mentions: ["\"a.txt\"", "appears twice"]),
        Case(label: "duplicate folder entry beside a file", entries: [RawZip.file("a", [1]), RawZip.directory("a/")],
             mentions: ["\"a\"", "both a file and a directory"]),
        Case(label: "file and file below it", entries: [RawZip.file("a", [1]), RawZip.file("a/b.txt", [2])],
             mentions: ["\"a\"", "the folder of \"a/b.txt\"", "both a file and a directory"]),
        Case(label: "file below, then the file", entries: [RawZip.file("a/b.txt", [2]), RawZip.file("a", [1])],
             mentions: ["\"a\"", "the folder of \"a/b.txt\"", "both a file and a directory"]),
        Case(label: "case twins", entries: [RawZip.file("Readme.txt", [1]), RawZip.file("README.TXT", [2])],
             mentions: ["\"Readme.txt\"", "\"README.TXT\"", "differ only in case"]),
        Case(label: "case twins as folders", entries: [RawZip.file("Dir/x.txt", [1]), RawZip.file("dir/y.txt", [2])],
             mentions: ["\"Dir/\" (the folder of \"Dir/x.txt\"", "\"dir/\" (the folder of \"dir/y.txt\"", "differ only in case"]),
        Case(label: "NFC and NFD", entries: [RawZip.file("caf\u{E9}.txt", [1]), RawZip.file("cafe\u{301}.txt", [2])],
             mentions: ["caf\u{E9}.txt", "cafe\u{301}.txt", "Unicode normalization"]),
        Case(label: "NFD folder and NFC file", entries: [RawZip.file("A\u{30A}/x", [1]), RawZip.file("\u{C5}", [2])],
             mentions: ["Unicode normalization"]),
        Case(label: "a temporary's name", entries: [RawZip.file("d/.assetpack-tmp-0", [1])],
             mentions: ["d/.assetpack-tmp-0", "reserved"]),
    ]

    @Test(arguments: cases, Placement.allCases)
    func isRefusedWhilePlanning(_ conflict: Case, _ placement: Placement) throws {
        let stage = try HostileStage("conflict")
        let error = try stage.refuse(rawZip(conflict.entries), placement)
        expectError(error, .conflict, mentions: [stage.archivePath(placement).shown] + conflict.mentions)
        stage.expectIntact()
        #expect(!FileManager.default.fileExists(atPath: stage.scratch.file("out/.assets.assetpack-staging")))
    }

    @Test func theRecordsNameInAnArchiveOfTheTreeIsRefused() throws {
        let stage = try HostileStage("conflict-reserved")
        let error = try stage.refuse(rawZip([RawZip.file(".assetpack/identity", Array("forged".utf8))]), .inTree)
        expectError(error, .conflict, mentions: [".assetpack/identity", "reserved", "pack.zip"])
        stage.expectIntact()
    }

    /// A bookkeeping folder at the top of a source without a manifest is no bundle's (a bundle is planned
    /// from its manifest): its files are refused like the record's name in an archive of the tree, never
    /// dropped without a word while the rest expands.
    @Test(arguments: [".assetpack/user-data.bin", "assetpack-meta/notes.txt"], Placement.allCases)
    func aBookkeepingFolderOfAnArchiveWithoutAManifestIsRefused(_ name: String, _ placement: Placement) throws {
        if placement == .inTree && name.hasPrefix("assetpack-meta") { return }  // an ordinary folder where the archive is unzipped
        let stage = try HostileStage("conflict-bookkeeping")
        let entries = [RawZip.file(name, Array("mine".utf8)), RawZip.file(".assetpack/sub/x.txt", [1]), RawZip.file("a.txt", [2])]
        let error = try stage.refuse(rawZip(entries), placement)
        expectError(error, .conflict, mentions: [stage.archivePath(placement).shown, name, "reserved"])
        stage.expectIntact()
    }

    @Test(arguments: [".assetpack", "assetpack-meta"])
    func aBookkeepingFolderOfAFolderWithoutAManifestIsRefused(_ folder: String) throws {
        let stage = try HostileStage("conflict-bookkeeping-folder")
        try stage.scratch.write("tree/\(folder)/user.bin", text: "mine")
        try stage.scratch.write("tree/a.txt", text: "a")
        expectError(stage.refuse(.inTree), .conflict, mentions: [stage.scratch.file("tree"), folder, "reserved"])
        stage.expectIntact()
        // Deeper down the names are ordinary ones.
        try FileManager.default.moveItem(atPath: stage.scratch.file("tree/\(folder)"), toPath: stage.scratch.file("tree/sub"))
        try stage.scratch.write("tree/sub/\(folder)/deeper.bin", text: "fine")
        #expect(try stage.accept(.inTree)?.files["sub/\(folder)/deeper.bin"] == Array("fine".utf8))
    }

    @Test func aFileOfTheTreeAndAnEntryOfAnArchiveInItConflict() throws {
        let stage = try HostileStage("conflict-tree")
        try stage.scratch.write("tree/readme.txt", text: "from the tree")
        try RawZip([RawZip.file("README.txt", Array("from the archive".utf8))]).write(to: stage.scratch.file("tree/pack.zip"))
        expectError(stage.refuse(.inTree), .conflict, mentions: ["\"readme.txt\"", "\"README.txt\"", "pack.zip"])
        stage.expectIntact()
    }

    @Test func twoArchivesUnzippedIntoOneFolderConflict() throws {
        let stage = try HostileStage("conflict-two")
        try RawZip([RawZip.file("photos/frog.jpg", [1])]).write(to: stage.scratch.file("tree/a.zip"))
        try RawZip([RawZip.file("Photos/Frog.jpg", [2])]).write(to: stage.scratch.file("tree/b.zip"))
        expectError(stage.refuse(.inTree), .conflict, mentions: ["a.zip", "b.zip", "differ only in case"])
        stage.expectIntact()
    }
}
