import AssetPack
import Foundation
import Testing
import TestSupport

/// `expand --in-place`: killed at any point of an upgrade in place, the destination is never called up to date,
/// and the next `expand` — with or without the option — finishes the exact new version, leaving nothing beside it.
@Suite struct InPlaceCLITests {
    let cli = ExpandCLITests()
    typealias Files = ExpandCLITests.Files

    /// Version 2 of ``ExpandCLITests/tree``: one file rewritten, two removed (one folder with them), two renamed
    /// (one into a new folder), three added.
    static let v2: Files = {
        var files = ExpandCLITests.tree
        files["text/story.txt"] = Array("rewritten".utf8)
        for index in [3, 7] { files["level3/chunk\(index).bin"] = nil }
        files["renamed/chunk1.bin"] = files.removeValue(forKey: "level1/chunk1.bin")
        files["level2/chunk2-renamed.bin"] = files.removeValue(forKey: "level2/chunk2.bin")
        for index in 0..<3 { files["new/deeper/added\(index).txt"] = Array("added \(index)".utf8) }
        return files
    }()

    /// A scratch folder holding versions 1 and 2 as bundles (`v1`, `v2`: with SHA-256s, so renamed files are found).
    func builtVersions(_ label: String) throws -> TemporaryDirectory {
        let scratch = try TemporaryDirectory(label)
        for (name, files) in [("tree1", ExpandCLITests.tree), ("tree2", Self.v2)] {
            try ExpandCLITests.write(files, to: scratch.file(name))
            let built = try run(cli.tool, ["build", scratch.file(name), "-o", scratch.file(name == "tree1" ? "v1" : "v2"),
                                           "--threshold", "3K"])
            #expect(built.status == 0, "\(built.stderr)")
            try FileManager.default.removeItem(atPath: scratch.file(name))
        }
        return scratch
    }

    @Test func killedAnywhereInAnUpgradeInPlaceTheNextExpandFinishesIt() throws {
        let scratch = try builtVersions("cli-in-place")
        let destination = scratch.file("assets")
        let identity = destination + "/.assetpack/identity"
        var points: [[String: String]] = [["ASSETPACK_TEST_KILL_AT": "committed"]]
        points += [1, 2, 4, 7, 10].map { ["ASSETPACK_TEST_KILL_AFTER_APPLIED": String($0)] }
        for point in points {
            try? FileManager.default.removeItem(atPath: destination)
            #expect(try cli.expand([scratch.file("v1"), "--to", destination]).status == 0)
            let renamed = inodeNumber(destination + "/level1/chunk1.bin")
            let unchanged = inodeNumber(destination + "/level0/chunk0.bin")

            let killed = try cli.expand([scratch.file("v2"), "--to", destination, "--in-place", "--jobs", "1"], environment: point)
            #expect(killed.status == 128 + 9, "\(point): \(killed.stderr)")
            if point["ASSETPACK_TEST_KILL_AT"] != nil {
                #expect(ExpandCLITests.digest(ExpandCLITests.read(destination)) == ExpandCLITests.digest(ExpandCLITests.tree),
                        "\(point): nothing changed before the upgrade began")
            } else {
                #expect(!FileManager.default.fileExists(atPath: identity), "\(point): a tree being changed is not up to date")
                let status = try run(cli.tool, ["status", destination, "--json"])
                let report = try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any]
                let staging = report?["staging"] as? [String: Any]
                #expect(status.status == 2 && report?["state"] as? String == "partial" && staging?["applying"] as? Bool == true
                        && (report?["unknown"] as? [Any])?.isEmpty == true, "\(point): \(status.stdout)")
                let text = try run(cli.tool, ["status", destination])
                #expect(text.stdout.contains("upgrade in place was cut short"), "\(point): \(text.stdout)")
            }
            let finished = try cli.expand([scratch.file("v2"), "--to", destination])
            #expect(finished.status == 0, "\(point): \(finished.stderr)")
            #expect(ExpandCLITests.digest(ExpandCLITests.read(destination)) == ExpandCLITests.digest(Self.v2), "\(point)")
            #expect(FileManager.default.fileExists(atPath: identity))
            #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path).sorted() == ["assets", "v1", "v2"], "\(point)")
            #expect(inodeNumber(destination + "/renamed/chunk1.bin") == renamed, "\(point): the renamed file was reused")
            #expect(inodeNumber(destination + "/level0/chunk0.bin") == unchanged, "\(point)")
            let verified = try cli.expand([scratch.file("v2"), "--to", destination, "--verify"])
            #expect(verified.status == 0, "\(point): \(verified.stdout) \(verified.stderr)")
        }
    }

    /// A scratch folder holding versions 1 and 2 as folders, version 1 installed into its `assets`.
    func installedVersion1(_ label: String) throws -> (TemporaryDirectory, String) {
        let scratch = try TemporaryDirectory(label)
        try ExpandCLITests.write(ExpandCLITests.tree, to: scratch.file("v1"))
        try ExpandCLITests.write(Self.v2, to: scratch.file("v2"))
        let destination = scratch.file("assets")
        #expect(try cli.expand([scratch.file("v1"), "--to", destination]).status == 0)
        return (scratch, destination)
    }

    /// An upgrade in place stages its files — written, and renamed ones linked — in one flat folder of the staging
    /// record folder, named by their paths' SHA-256 (no folder of the tree is made in staging); killed once they are
    /// staged, it leaves them for the next run, which keeps the written ones (read again and checked).
    @Test func anUpgradeInPlaceStagesItsFilesFlatAndTheNextRunKeepsThem() throws {
        let scratch = try builtVersions("cli-in-place-flat")
        let destination = scratch.file("assets")
        #expect(try cli.expand([scratch.file("v1"), "--to", destination]).status == 0)
        let renamed = inodeNumber(destination + "/level1/chunk1.bin")
        let killed = try cli.expand([scratch.file("v2"), "--to", destination, "--in-place"],
                                    environment: ["ASSETPACK_TEST_KILL_AT": "committed"])
        #expect(killed.status == 128 + 9, "\(killed.stderr)")
        let staging = scratch.file(".assets.assetpack-staging")
        #expect(folderNames(staging) == [".assetpack"], "no folder of the tree is made in staging")
        let flat = folderNames(staging + "/.assetpack/moved")
        #expect(flat.count == 6 && flat.allSatisfy { $0.count == 64 }, "1 rewritten, 3 added, 2 renamed: \(flat)")
        let resumed = try cli.expand([scratch.file("v2"), "--to", destination, "--in-place"])
        #expect(resumed.status == 0 && resumed.stdout.contains("resumed"), "\(resumed.stdout) \(resumed.stderr)")
        #expect(ExpandCLITests.digest(ExpandCLITests.read(destination)) == ExpandCLITests.digest(Self.v2))
        #expect(inodeNumber(destination + "/renamed/chunk1.bin") == renamed)
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path).sorted() == ["assets", "v1", "v2"])
        #expect(try cli.expand([scratch.file("v2"), "--to", destination, "--verify"]).status == 0)
    }

    @Test func discardingAnUpgradeInPlaceCutShortFinishesIt() throws {
        let (scratch, destination) = try installedVersion1("cli-in-place-discard")
        let killed = try cli.expand([scratch.file("v2"), "--to", destination, "--in-place"],
                                    environment: ["ASSETPACK_TEST_KILL_AFTER_APPLIED": "3"])
        #expect(killed.status == 128 + 9, "\(killed.stderr)")
        // Removing its staging tree would leave a mix with version 1's record: the upgrade is finished instead.
        let installer = try AssetInstaller(source: DirectorySource(root: scratch.file("v1")), destination: destination)
        #expect(try installer.discardPartialInstall())
        #expect(ExpandCLITests.digest(ExpandCLITests.read(destination)) == ExpandCLITests.digest(Self.v2))
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path).sorted() == ["assets", "v1", "v2"])
        #expect(try cli.expand([scratch.file("v2"), "--to", destination, "--verify"]).status == 0)
    }

    @Test func anUpgradeInPlaceThenAnotherIsUpToDate() throws {
        let (scratch, destination) = try installedVersion1("cli-in-place-twice")
        let upgraded = try cli.expand([scratch.file("v2"), "--to", destination, "--in-place"])
        #expect(upgraded.status == 0, "\(upgraded.stderr)")
        #expect(ExpandCLITests.digest(ExpandCLITests.read(destination)) == ExpandCLITests.digest(Self.v2))
        let again = try cli.expand([scratch.file("v2"), "--to", destination, "--in-place", "--json"])
        let summary = try JSONSerialization.jsonObject(with: Data(again.stdout.utf8)) as? [String: Any]
        #expect(again.status == 0 && summary?["upToDate"] as? Bool == true, "\(again.stdout)")
        let refused = try cli.expand([scratch.file("v2"), "--to", destination, "--verify", "--in-place"])
        #expect(refused.status != 0 && refused.stderr.contains("--in-place"), "\(refused.stderr)")
    }
}
