import AssetPack
import AssetPackZip
import Foundation
import Testing
import TestSupport

/// `AssetInstaller.verify`: the deep check of an installed tree against its record, and the repair through
/// the installer's staging tree and switch.
@Suite struct InstallVerifyTests {
    /// Installs `.standard` (its big file packed) into `scratch/assets`.
    private func installed(_ scratch: TemporaryDirectory, options: ExpansionOptions = ExpansionOptions(jobs: 2)) throws -> AssetInstaller {
        try ExpansionFixtures.bundle(.standard, packed: ["big.bin": .deflate], at: scratch.file("bundle"), scratch: scratch)
        let installer = try AssetInstaller(source: DirectorySource(root: scratch.file("bundle")), destination: scratch.file("assets"),
                                           options: options)
        try installer.installSynchronously()
        return installer
    }

    /// The five kinds of damage of the issue, one file each.
    private func damage(_ destination: String) throws {
        try TreeDamage.delete(destination + "/a.txt")
        try TreeDamage.truncate(destination + "/nested/y.txt", to: 100)
        try TreeDamage.flipByte(destination + "/big.bin", at: 150_000)
        try chmod(destination + "/README", 0o755)
        try TreeDamage.replaceByFolder(destination + "/zero.bin")
    }

    private static let damaged: [(String, InstalledTreeProblem.Kind)] = [
        ("README", .mode), ("a.txt", .missing), ("big.bin", .content), ("nested/y.txt", .size), ("zero.bin", .type),
    ]

    @Test func aDamagedTreeIsRepairedByteForByteAndOnlyTheDamagedFilesAreWritten() throws {
        let scratch = try TemporaryDirectory("verify-repair")
        let installer = try installed(scratch)
        let destination = installer.destination
        let untouched = inodeNumber(destination + "/nested/deeper/x.bin")
        try damage(destination)
        #expect(try installer.installSynchronously().upToDate, "the fast check reads two small files and trusts the tree")

        let result = try installer.repair()
        #expect(result.outcome == .repaired)
        #expect(result.problems.map { "\($0.path) \($0.kind)" } == Self.damaged.map { "\($0.0) \($0.1)" })
        #expect(result.problems.map(\.description) == [
            "README: mode 0755, recorded 0644", "a.txt: missing",
            "big.bin: contents differ (CRC-32 \(hex(CRC32.checksum(flipped(AssetTree.standard.files["big.bin"]!)))), "
                + "recorded \(hex(CRC32.checksum(AssetTree.standard.files["big.bin"]!))))",
            "nested/y.txt: size 100, recorded 2000", "zero.bin: a folder, recorded a file",
        ])
        #expect(result.repaired == Self.damaged.map(\.0))
        #expect(result.unknown == [] && !result.unknownRemoved)
        #expect(result.filesChecked == AssetTree.standard.files.count)
        #expect(result.expansion?.filesWritten == 5)
        #expect(result.expansion?.filesLinked == AssetTree.standard.files.count - 5)
        #expect(DiskTree.read(destination) == DiskTree(.standard))
        #expect(TreeDamage.permissions(destination + "/README") == 0o644)
        #expect(inodeNumber(destination + "/nested/deeper/x.bin") == untouched, "unchanged files are linked, not rewritten")
        #expect(hiddenNames(scratch.path) == [], "the staging tree is switched in and the damaged tree removed")

        let again = try installer.repair()
        #expect(again.outcome == .upToDate)
        #expect(again.problems == [] && again.repaired == [] && again.expansion == nil)
    }

    private func flipped(_ bytes: [UInt8]) -> [UInt8] {
        var copy = bytes
        copy[150_000] = ~copy[150_000]
        return copy
    }

    @Test func verifyOnlyReportsAndWritesNothing() throws {
        let scratch = try TemporaryDirectory("verify-check")
        let installer = try installed(scratch)
        try damage(installer.destination)
        let before = DiskTree.read(installer.destination)
        let result = try installer.verify()
        #expect(result.outcome == .damaged)
        #expect(result.problems.map(\.path) == Self.damaged.map(\.0))
        #expect(result.repaired == [] && result.expansion == nil)
        #expect(result.identity == (try installer.status().installed?.identity) && result.seconds > 0)
        #expect(DiskTree.read(installer.destination) == before)
        #expect(hiddenNames(scratch.path) == [])
    }

    @Test func foldersAndLinkTargetsAreCheckedAndRepairedToo() throws {
        let scratch = try TemporaryDirectory("verify-links")
        try makeParent(scratch.file("tree/links.zip"))
        let writer = try ZipWriter(path: scratch.file("tree/links.zip"))
        try writer.addFile("d/target.txt", contents: [1])
        try writer.addFile("d/other.txt", contents: [2])
        try writer.addSymlink("d/link", target: "target.txt")
        try writer.addDirectory("d/empty")
        try writer.finish(sync: false)
        let installer = try AssetInstaller(source: DirectorySource(root: scratch.file("tree")), destination: scratch.file("out"),
                                           options: ExpansionOptions(allowSymlinks: true))
        try installer.installSynchronously()
        let expected = DiskTree.read(scratch.file("out"))
        try FileManager.default.removeItem(atPath: scratch.file("out/d/link"))
        try FileManager.default.createSymbolicLink(atPath: scratch.file("out/d/link"), withDestinationPath: "other.txt")
        try FileManager.default.removeItem(atPath: scratch.file("out/d/empty"))
        try chmod(scratch.file("out/d"), 0o700)

        let result = try installer.repair()
        #expect(result.problems.map(\.description) == [
            "d: mode 0700, recorded 0755", #"d/empty: missing"#, #"d/link: links to "other.txt", recorded "target.txt""#,
        ])
        #expect(result.outcome == .repaired)
        #expect(result.filesChecked == 3, "two files and a link, as expand counts them")
        #expect(DiskTree.read(scratch.file("out")) == expected)
        #expect(TreeDamage.permissions(scratch.file("out/d")) == 0o755)
        #expect(try installer.repair().outcome == .upToDate)
    }

    @Test func unknownEntriesAreListedAndStayUntilARepairSwitchesInANewTree() throws {
        let scratch = try TemporaryDirectory("verify-unknown")
        let installer = try installed(scratch)
        let destination = installer.destination
        try scratch.write("assets/notes.txt", text: "the app's own file")
        try scratch.write("assets/cache/blob", text: "cached")
        try scratch.write("assets/nested/saved.json", text: "{}")

        let found = try installer.repair()
        #expect(found.outcome == .upToDate)
        #expect(found.unknown == ["cache/", "nested/saved.json", "notes.txt"])
        #expect(!found.unknownRemoved)
        #expect(FileManager.default.fileExists(atPath: destination + "/notes.txt"))

        try TreeDamage.delete(destination + "/a.txt")
        let repaired = try installer.repair()
        #expect(repaired.outcome == .repaired)
        #expect(repaired.unknown == ["cache/", "nested/saved.json", "notes.txt"])
        #expect(!repaired.unknownRemoved, "kept: carried into the repaired tree")
        #expect(repaired.expansion?.unknownKept == ["cache/", "nested/saved.json", "notes.txt"])
        #expect(try fileBytes(destination + "/notes.txt") == Array("the app's own file".utf8))
        #expect(try fileBytes(destination + "/cache/blob") == Array("cached".utf8))

        // Asked for, a repair removes them and says so.
        try TreeDamage.delete(destination + "/a.txt")
        var options = installer.options
        options.removesUnknownEntries = true
        let removing = try AssetInstaller(source: installer.source, destination: destination, options: options)
        let cleaned = try removing.repair()
        #expect(cleaned.unknownRemoved)
        #expect(cleaned.expansion?.unknownDeleted == ["cache/", "nested/saved.json", "notes.txt"])
        #expect(DiskTree.read(destination) == DiskTree(.standard))
    }

    /// A tree whose record is gone is no longer proven to be assetpack's (its identity file alone proves nothing):
    /// a repair refuses it, naming the folder and why, and changes nothing.
    @Test func aTreeWhoseRecordIsGoneIsRefusedNotReplaced() throws {
        let scratch = try TemporaryDirectory("verify-record")
        let installer = try installed(scratch)
        try TreeDamage.delete(installer.destination + "/.assetpack/installed.json.gz")
        #expect(!installer.isUpToDate())
        let before = DiskTree.read(installer.destination)
        let error = #expect(throws: AssetPackError.self) { try installer.repair() }
        #expect(error?.code == .invalidArgument && error?.path == installer.destination, "\(String(describing: error))")
        #expect(error?.message.contains("no install record") == true)
        #expect(DiskTree.read(installer.destination) == before)
    }

    @Test func verifyInstallsOverNothingAndNeverReusesADamagedFileOfAnotherVersion() throws {
        let scratch = try TemporaryDirectory("verify-upgrade")
        let v1 = AssetTree(files: ["same.bin": Array(repeating: 7, count: 4_000), "old.txt": Array("old".utf8)])
        let v2 = AssetTree(files: ["same.bin": Array(repeating: 7, count: 4_000), "new.txt": Array("new".utf8)])
        for (tree, name) in [(v1, "v1"), (v2, "v2")] {
            try mkdir(scratch.file(name))
            try tree.write(to: scratch.file(name))
        }
        let first = try AssetInstaller(source: DirectorySource(root: scratch.file("v1")), destination: scratch.file("out")).repair()
        #expect(first.outcome == .installed && first.problems == [])
        #expect(DiskTree.read(scratch.file("out")) == DiskTree(v1))

        // An upgrade links files whose record matches; a verifying upgrade first reads them.
        try TreeDamage.flipByte(scratch.file("out/same.bin"), at: 10)
        let upgrade = try AssetInstaller(source: DirectorySource(root: scratch.file("v2")), destination: scratch.file("out"))
        #expect(try upgrade.verify().outcome == .outdated)
        let result = try upgrade.repair()
        #expect(result.outcome == .installed)
        #expect(result.problems.map(\.path) == ["same.bin"])
        #expect(result.expansion?.filesLinked == 0)
        #expect(DiskTree.read(scratch.file("out")) == DiskTree(v2))
    }

    @Test func aFolderThatAssetpackDidNotMakeIsRefusedAndLeftAlone() throws {
        let scratch = try TemporaryDirectory("verify-foreign")
        try scratch.write("src/a.txt", text: "a")
        try scratch.write("out/mine.txt", text: "mine")
        let installer = try AssetInstaller(source: DirectorySource(root: scratch.file("src")), destination: scratch.file("out"))
        let check = try installer.verify()
        #expect(check.outcome == .outdated && check.unknown == ["mine.txt"])
        let error = #expect(throws: AssetPackError.self) { try installer.repair() }
        #expect(error?.code == .invalidArgument)
        #expect(folderNames(scratch.file("out")) == ["mine.txt"])
    }
}
