import AssetPack
import AssetPackZip
import Foundation
import Testing
import TestSupport

/// Symbolic-link entries. Policy: by default a link entry is refused with `.symlink` (never skipped,
/// never created). With ``ExpansionOptions/allowSymlinks`` a link is created only when its target,
/// resolved on the real file system after every link exists, stays inside the destination; anything
/// else — absolute targets, `..` escapes, chains through other links, loops, entries written "through" a
/// link — fails with `.symlink`, and the links are removed again.
@Suite struct HostileSymlinkTests {
    static let allow = ExpansionOptions(allowSymlinks: true, jobs: 1)

    /// A hostile set of entries and what the error must mention.
    struct Case: Sendable, CustomTestStringConvertible {
        let label: String
        let entries: @Sendable (_ outside: String) -> [RawZip.Entry]
        let mentions: [String]
        var testDescription: String { label }
    }

    static let escapes: [Case] = [
        Case(label: "absolute target", entries: { [RawZip.symlink("link", to: $0)] }, mentions: ["\"link\"", "not a relative path"]),
        Case(label: "target /etc/passwd", entries: { _ in [RawZip.symlink("pw", to: "/etc/passwd")] }, mentions: ["\"pw\""]),
        Case(label: "parent", entries: { _ in [RawZip.symlink("up", to: "..")] }, mentions: ["\"up\"", "outside the destination"]),
        Case(label: "parent from a folder", entries: { _ in [RawZip.file("d/f.txt", [1]), RawZip.symlink("d/up", to: "../../outside")] },
             mentions: ["\"d/up\"", "outside the destination"]),
        Case(label: "chain l1 -> ., up -> l1/..",
             entries: { _ in [RawZip.symlink("l1", to: "."), RawZip.symlink("up", to: "l1/..")] },
             mentions: ["\"up\"", "l1/..", "outside the destination"]),
        Case(label: "chain through a link into a folder",
             entries: { _ in [RawZip.directory("d/"), RawZip.symlink("d/top", to: ".."), RawZip.symlink("x", to: "d/top/..")] },
             mentions: ["\"x\"", "outside the destination"]),
        Case(label: "loop", entries: { _ in [RawZip.symlink("a", to: "b"), RawZip.symlink("b", to: "a")] },
             mentions: ["too many symbolic links"]),
        Case(label: "self loop", entries: { _ in [RawZip.symlink("me", to: "me/x")] }, mentions: ["too many symbolic links"]),
        Case(label: "dangling, then up", entries: { _ in [RawZip.symlink("l", to: "missing/../../outside")] },
             mentions: ["\"l\"", "outside the destination"]),
        // Fuzz finding: "/" followed by a combining mark is one Character but a separator on disk.
        Case(label: "parent hidden by a combining mark", entries: { _ in [RawZip.symlink("l", to: "../\u{301}x")] },
             mentions: ["\"l\"", "outside the destination"]),
        Case(label: "absolute hidden by a combining mark", entries: { _ in [RawZip.symlink("l", to: "/\u{301}etc")] },
             mentions: ["\"l\"", "not a relative path"]),
        Case(label: "backslash target", entries: { _ in [RawZip.symlink("l", to: "..\\..\\outside")] },
             mentions: ["\"l\"", "not a relative path"]),
        Case(label: "NUL in the target", entries: { _ in [RawZip.symlink("l", to: "ok\u{0}/../..")] }, mentions: ["\"l\""]),
        Case(label: "empty target", entries: { _ in [RawZip.symlink("l", to: "")] }, mentions: ["\"l\"", "not a relative path"]),
        Case(label: "a file through an outside link",
             entries: { [RawZip.symlink("link", to: $0), RawZip.file("link/evil.txt", [6])] }, mentions: ["\"link\""]),
        Case(label: "a file through a link inside",
             entries: { _ in [RawZip.directory("sub/"), RawZip.symlink("link", to: "sub"), RawZip.file("link/evil.txt", [6])] },
             mentions: ["\"link\"", "written through the link"]),
        Case(label: "a file through a chain (l1 -> ., up -> l1/.., up/evil.txt)",
             entries: { _ in [RawZip.symlink("l1", to: "."), RawZip.symlink("up", to: "l1/.."), RawZip.file("up/evil.txt", [6])] },
             mentions: ["\"up\"", "written through the link"]),
        Case(label: "the file first, then the link",
             entries: { _ in [RawZip.file("up/evil.txt", [6]), RawZip.symlink("up", to: "..")] },
             mentions: ["\"up\"", "written through the link"]),
    ]

    @Test(arguments: escapes)
    func isRefusedByDefault(_ hostile: Case) throws {
        let stage = try HostileStage("link-default")
        let error = try stage.refuse(rawZip(hostile.entries(stage.outside)), .inTree)
        expectError(error, .symlink, mentions: ["pack.zip"])
        stage.expectIntact()
        #expect(!FileManager.default.fileExists(atPath: stage.scratch.file("out/.assets.assetpack-staging")))
    }

    @Test(arguments: escapes)
    func isRefusedWhenLinksAreAllowed(_ hostile: Case) throws {
        let stage = try HostileStage("link-allowed")
        let error = try stage.refuse(rawZip(hostile.entries(stage.outside)), .inTree, options: Self.allow)
        expectError(error, .symlink, mentions: ["pack.zip"] + hostile.mentions)
        stage.expectIntact(absent: ["evil.txt", "up/evil.txt", "link/evil.txt"])
        // No link is left behind, not even in the staging tree kept for a resume.
        let staged = HostileStage.allNames(stage.scratch.file("out/.assets.assetpack-staging"))
        let links = staged.filter { (try? FileManager.default.destinationOfSymbolicLink(
            atPath: stage.scratch.file("out/.assets.assetpack-staging/" + $0))) != nil }
        #expect(links.isEmpty, "links left in staging: \(links)")
    }

    @Test func aLinkEntryIsRefusedByDefaultNamingTheEntryAndTheOption() throws {
        let stage = try HostileStage("link-message")
        let error = try stage.refuse(rawZip([RawZip.file("t.txt", [1]), RawZip.symlink("d/link", to: "../t.txt")]), .inTree)
        expectError(error, .symlink, mentions: ["pack.zip", "\"d/link\"", "allowSymlinks", "--allow-symlinks"])
        stage.expectIntact()
    }

    @Test func aLinkEntryOfAnArchiveSourceIsRefusedEvenWhenAllowed() throws {
        // Documented policy: an archive expanded as the source is read through list/open, which has no links.
        let stage = try HostileStage("link-source")
        let bytes = rawZip([RawZip.file("t.txt", [1]), RawZip.symlink("link", to: "t.txt")])
        // Without the option the message already says the option would not help: no dead-end hint.
        for options in [ExpansionOptions(jobs: 1), Self.allow] {
            let error = try stage.refuse(bytes, .asSource, options: options)
            expectError(error, .symlink, mentions: ["hostile.zip", "\"link\"", "never created", "list/open"])
        }
        stage.expectIntact()
    }

    @Test func harmlessLinksInsideAreCreatedWhenAllowed() throws {
        let stage = try HostileStage("link-harmless")
        try RawZip([
            RawZip.file("data/t.txt", Array("target".utf8)),
            RawZip.symlink("data/same", to: "t.txt"),
            RawZip.symlink("data/sub/up", to: "../t.txt"),
            RawZip.symlink("top", to: "data/./sub/../t.txt"),
            RawZip.symlink("dir", to: "data"),
            RawZip.symlink("via", to: "dir/same"),
            RawZip.symlink("later", to: "missing/../data/t.txt"),  // dangling, but inside once "missing" exists
        ]).write(to: stage.archivePath(.inTree).path)
        let tree = try stage.accept(.inTree, options: Self.allow)
        #expect(tree?.symlinks == ["data/same": "t.txt", "data/sub/up": "../t.txt", "top": "data/./sub/../t.txt",
                                   "dir": "data", "via": "dir/same", "later": "missing/../data/t.txt"])
        #expect(tree?.files == ["data/t.txt": Array("target".utf8)])
        #expect(try String(contentsOfFile: stage.destination + "/via", encoding: .utf8) == "target")
        #expect(folderNames(stage.outside) == [])
    }
}

/// A symlink planted in or beside the destination before an expansion is never followed: the install
/// builds a new tree from descriptors opened with `O_NOFOLLOW` and switches it in.
@Suite struct PlantedSymlinkTests {
    /// The next version: `d/old.bin` unchanged (an upgrade would hard-link it from the installed tree).
    static let next = AssetTree(files: ["keep.txt": Array("the next version\n".utf8),
                                        "d/old.bin": Array(repeating: 7, count: 3_000), "d/new.txt": Array("new".utf8)])

    @Test func aLinkPlantedInsideTheDestinationIsNotFollowed() throws {
        let stage = try HostileStage("planted-inside")
        try FileManager.default.removeItem(atPath: stage.destination + "/d")
        try FileManager.default.createSymbolicLink(atPath: stage.destination + "/d", withDestinationPath: stage.outside)
        // Same size as the unchanged file: an upgrade that followed the link would hard-link this one.
        let bait = Array(repeating: UInt8(9), count: 3_000)
        try Data(bait).write(to: URL(fileURLWithPath: stage.outside + "/old.bin"))
        try Self.next.write(to: stage.scratch.file("next"))
        try AssetInstaller(source: DirectorySource(root: stage.scratch.file("next")), destination: stage.destination).installSynchronously()
        #expect(DiskTree.read(stage.destination) == DiskTree(Self.next))
        #expect(folderNames(stage.outside) == ["old.bin"])
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: stage.outside + "/old.bin"))) == bait)
        #expect(inodeNumber(stage.outside + "/old.bin") != inodeNumber(stage.destination + "/d/old.bin"))
    }

    @Test func aLinkPlantedInTheStagingTreeIsNotFollowed() throws {
        let stage = try HostileStage("planted-staging")
        try Self.next.write(to: stage.scratch.file("next"))
        let installer = try AssetInstaller(source: DirectorySource(root: stage.scratch.file("next")), destination: stage.destination,
                                           options: ExpansionOptions(jobs: 1))
        let cancellation = ExpansionCancellation()
        #expect(throws: AssetPackError.self) {
            try installer.installSynchronously(progress: { if $0.filesWritten >= 1 { cancellation.cancel() } }, cancellation: cancellation)
        }
        let staging = stage.scratch.file("out/.assets.assetpack-staging")
        #expect(FileManager.default.fileExists(atPath: staging + "/.assetpack/staging"), "an interrupted staging tree to resume")
        try? FileManager.default.removeItem(atPath: staging + "/d")
        try FileManager.default.createSymbolicLink(atPath: staging + "/d", withDestinationPath: stage.outside)
        try installer.installSynchronously()
        #expect(DiskTree.read(stage.destination) == DiskTree(Self.next))
        #expect(folderNames(stage.outside) == [])
        #expect(hiddenNames(stage.scratch.file("out")) == [])
    }

    @Test func aLinkPlantedAsTheStagingTreeIsRemovedNotFollowed() throws {
        let stage = try HostileStage("planted-staging-name")
        try Self.next.write(to: stage.scratch.file("next"))
        try FileManager.default.createSymbolicLink(atPath: stage.scratch.file("out/.assets.assetpack-staging"),
                                                   withDestinationPath: stage.outside)
        try AssetInstaller(source: DirectorySource(root: stage.scratch.file("next")), destination: stage.destination).installSynchronously()
        #expect(DiskTree.read(stage.destination) == DiskTree(Self.next))
        #expect(folderNames(stage.outside) == [])
        #expect(hiddenNames(stage.scratch.file("out")) == [])
    }

    @Test func aDestinationThatIsALinkIsRefused() throws {
        let stage = try HostileStage("planted-destination")
        try Self.next.write(to: stage.scratch.file("next"))
        let linked = stage.scratch.file("out/linked")
        try FileManager.default.createSymbolicLink(atPath: linked, withDestinationPath: stage.outside)
        let error = #expect(throws: AssetPackError.self) {
            try AssetInstaller(source: DirectorySource(root: stage.scratch.file("next")), destination: linked).installSynchronously()
        }
        expectError(error, .invalidArgument, mentions: [linked, "is a symbolic link", "give the folder itself"])
        #expect(folderNames(stage.outside) == [])
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: linked) == stage.outside)
    }
}
