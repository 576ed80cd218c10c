import AssetPack
import AssetPackZip
import Foundation
import Testing
import TestSupport

/// An upgrade in place (``ExpansionOptions/upgradesInPlace``) gives exactly the tree a switch gives, changing
/// only what differs: unchanged files keep their inode and their one name, the user's entries stay (or go,
/// when asked), a conflict changes nothing, and the next call is up to date.
@Suite struct InPlaceUpgradeTests {
    static let v1 = AssetTree(files: [
        "same/unchanged.txt": Array("unchanged contents".utf8),
        "same/packed.bin": Array(repeating: 9, count: 50_000),
        "changed.txt": Array("old words".utf8),
        "removed/gone.txt": Array("bye".utf8),
        "removed/deeper/gone.bin": Array(repeating: 3, count: 700),
        "becomes-folder": Array("a file in 1".utf8),
        "becomes-file/inner.txt": Array("a folder in 1".utf8),
        "r/old-name.bin": (0..<6_000).map { UInt8(truncatingIfNeeded: $0 &* 31) },
    ], emptyDirectories: ["empty-old"])

    static let v2 = AssetTree(files: [
        "same/unchanged.txt": Array("unchanged contents".utf8),
        "same/packed.bin": Array(repeating: 9, count: 50_000),
        "changed.txt": Array("new words, more of them".utf8),
        "added/deep/new.txt": Array("hello".utf8),
        "becomes-folder/x.txt": Array("a folder in 2".utf8),
        "becomes-file": Array("a file in 2".utf8),
        "moved/new-name.bin": (0..<6_000).map { UInt8(truncatingIfNeeded: $0 &* 31) },
    ], emptyDirectories: ["empty-new"])

    struct Stage {
        let scratch: TemporaryDirectory
        var destination: String { scratch.file("out/assets") }

        init(_ label: String) throws {
            scratch = try TemporaryDirectory(label)
            for (name, tree) in [("v1", InPlaceUpgradeTests.v1), ("v2", InPlaceUpgradeTests.v2)] {
                try ExpansionFixtures.bundle(tree, packed: ["same/packed.bin": .deflate], at: scratch.file(name), scratch: scratch)
            }
            _ = try install("v1", inPlace: false)
        }

        func install(_ version: String, inPlace: Bool = true, removing: Bool = false, to: String? = nil,
                     durability: Durability = .flushOnCommit) throws -> ExpansionResult {
            var options = ExpansionOptions(jobs: 1, durability: durability)
            options.upgradesInPlace = inPlace
            options.removesUnknownEntries = removing
            return try AssetInstaller(source: DirectorySource(root: scratch.file(version)), destination: to ?? destination,
                                      options: options).installSynchronously()
        }
    }

    @Test(arguments: [Durability.flushOnCommit, .none])
    func anUpgradeInPlaceGivesTheTreeASwitchGivesChangingOnlyWhatDiffers(durability: Durability) throws {
        let stage = try Stage("in-place")
        let switched = stage.scratch.file("out/switched")
        _ = try stage.install("v1", inPlace: false, to: switched)
        let unchanged = inodeNumber(stage.destination + "/same/unchanged.txt")
        let renamed = inodeNumber(stage.destination + "/r/old-name.bin")
        let renamedThere = inodeNumber(switched + "/r/old-name.bin")
        let changed = inodeNumber(stage.destination + "/changed.txt")
        let folder = inodeNumber(stage.destination + "/same")

        let bySwitch = try stage.install("v2", inPlace: false, to: switched, durability: durability)
        let inPlace = try stage.install("v2", durability: durability)
        #expect(DiskTree.read(stage.destination) == DiskTree(Self.v2))
        #expect(DiskTree.read(stage.destination) == DiskTree.read(switched))
        #expect(try recordBytes(ofTree: stage.destination) != [])
        #expect(inPlace.filesWritten == bySwitch.filesWritten && inPlace.filesLinked == bySwitch.filesLinked,
                "\(inPlace.filesWritten)/\(inPlace.filesLinked) against \(bySwitch.filesWritten)/\(bySwitch.filesLinked)")
        #expect(inodeNumber(stage.destination + "/same/unchanged.txt") == unchanged)
        #expect(inodeNumber(stage.destination + "/same") == folder, "the folder itself stayed")
        #expect((inodeNumber(stage.destination + "/moved/new-name.bin") == renamed)
                == (inodeNumber(switched + "/moved/new-name.bin") == renamedThere), "a renamed file is reused as a switch reuses it")
        #expect(inodeNumber(stage.destination + "/changed.txt") != changed)
        let links = try FileManager.default.attributesOfItem(atPath: stage.destination + "/same/unchanged.txt")[.referenceCount] as? NSNumber
        #expect(links == 1, "no second name anywhere")
        #expect(hiddenNames(stage.scratch.file("out")) == [], "no staging tree is left")

        // The record is the new version's: the tree checks clean, and the next call is up to date.
        let installer = try AssetInstaller(source: DirectorySource(root: stage.scratch.file("v2")), destination: stage.destination)
        #expect(try installer.status().state == .installed)
        let verified = try installer.verify()
        #expect(verified.outcome == .upToDate && verified.problems.isEmpty, "\(verified)")
        #expect(try stage.install("v2").upToDate)
        // And back: an upgrade in place to version 1 gives version 1.
        _ = try stage.install("v1", durability: durability)
        #expect(DiskTree.read(stage.destination) == DiskTree(Self.v1))
    }

    @Test func aPlantedLinkOrAFolderInPlaceOfAnInstalledEntryGivesTheTreeASwitchGives() throws {
        let stage = try Stage("in-place-planted")
        let switched = stage.scratch.file("out/switched")
        _ = try stage.install("v1", inPlace: false, to: switched)
        let outside = stage.scratch.file("outside")
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        for root in [stage.destination, switched] {
            // The folder `same` becomes a link out of the tree; the file `changed.txt` a folder.
            try FileManager.default.removeItem(atPath: root + "/same")
            try FileManager.default.createSymbolicLink(atPath: root + "/same", withDestinationPath: outside)
            try FileManager.default.removeItem(atPath: root + "/changed.txt")
            try makeParent(root + "/changed.txt/inner.txt")
            try writeBytes(Array("planted".utf8), to: root + "/changed.txt/inner.txt")
        }
        _ = try stage.install("v2", inPlace: false, to: switched)
        _ = try stage.install("v2")
        #expect(DiskTree.read(switched) == DiskTree(Self.v2))
        #expect(DiskTree.read(stage.destination) == DiskTree.read(switched))
        #expect(try FileManager.default.contentsOfDirectory(atPath: outside).isEmpty, "nothing written through the link")
        #expect(hiddenNames(stage.scratch.file("out")) == [])
    }

    @Test func theUsersEntriesStayWhereTheyAreOrGoWhenAsked() throws {
        let stage = try Stage("in-place-unknown")
        for (path, text) in [("notes.txt", "mine"), ("same/mine.txt", "mine too"), ("removed/mine.txt", "in a dropped folder"),
                             ("user/a/b.txt", "deep")] {
            try makeParent(stage.destination + "/" + path)
            try writeBytes(Array(text.utf8), to: stage.destination + "/" + path)
        }
        // A name that is not UTF-8 (FF 6E 61 6D 65): removed by its bytes, never by a repaired name.
        let oddPath: [CChar] = (stage.destination + "/").utf8CString.dropLast() + [CChar(bitPattern: 0xFF)] + "name".utf8CString
        let fd = open(oddPath, O_CREAT | O_WRONLY | O_EXCL, 0o600)
        #expect(fd >= 0)
        close(fd)
        var info = stat()
        let inode = inodeNumber(stage.destination + "/user/a/b.txt")
        let kept = try stage.install("v2")
        #expect(kept.unknownKept == ["notes.txt", "removed/mine.txt", "same/mine.txt", "user/", "\u{FFFD}name"], "\(kept.unknownKept)")
        #expect(lstat(oddPath, &info) == 0)
        #expect(inodeNumber(stage.destination + "/user/a/b.txt") == inode)
        #expect(try fileBytes(stage.destination + "/removed/mine.txt") == Array("in a dropped folder".utf8))
        #expect(!FileManager.default.fileExists(atPath: stage.destination + "/removed/gone.txt"))
        #expect(!FileManager.default.fileExists(atPath: stage.destination + "/removed/deeper"))
        var expected = DiskTree(Self.v2)
        expected.files["notes.txt"] = Array("mine".utf8)
        expected.files["same/mine.txt"] = Array("mine too".utf8)
        expected.files["removed/mine.txt"] = Array("in a dropped folder".utf8)
        expected.files["user/a/b.txt"] = Array("deep".utf8)
        expected.files["\u{FFFD}name"] = []  // how Foundation lists the name that is not UTF-8
        expected.directories.formUnion(["removed", "user", "user/a"])
        #expect(DiskTree.read(stage.destination) == expected)

        let removed = try stage.install("v1", removing: true)
        // Version 2 has no folder `removed`: the whole folder is the user's now.
        #expect(Set(removed.unknownDeleted) == ["notes.txt", "removed/", "same/mine.txt", "user/", "\u{FFFD}name"],
                "\(removed.unknownDeleted)")
        #expect(lstat(oddPath, &info) != 0, "the file whose name is not UTF-8 is gone, as the result says")
        #expect(DiskTree.read(stage.destination) == DiskTree(Self.v1))
        #expect(hiddenNames(stage.scratch.file("out")) == [])
    }

    @Test func aNameTheNewVersionUsesIsAConflictAndNothingChanges() throws {
        let stage = try Stage("in-place-conflict")
        try makeParent(stage.destination + "/added/deep/new.txt")
        try writeBytes(Array("the user's".utf8), to: stage.destination + "/added/deep/new.txt")
        var before = DiskTree(Self.v1)
        before.files["added/deep/new.txt"] = Array("the user's".utf8)
        before.directories.formUnion(["added", "added/deep"])
        #expect(throws: AssetPackError.self) { try stage.install("v2") }
        do {
            _ = try stage.install("v2")
        } catch let error as AssetPackError {
            #expect(error.code == .conflict)
            #expect(error.path?.hasSuffix("added/deep/new.txt") == true, "\(error)")
        }
        #expect(DiskTree.read(stage.destination) == before)
        let installer = try AssetInstaller(source: DirectorySource(root: stage.scratch.file("v1")), destination: stage.destination)
        #expect(try installer.status().state == .installed, "still version 1, complete")
        #expect(hiddenNames(stage.scratch.file("out")) == [], "the staging tree of a conflict is removed")
        // Asked to remove it, the upgrade goes through.
        let result = try stage.install("v2", removing: true)
        #expect(result.unknownDeleted == ["added/"])
        #expect(DiskTree.read(stage.destination) == DiskTree(Self.v2))
    }
}
