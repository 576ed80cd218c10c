import Foundation
import Testing
import TestSupport

/// Archives written by other tools, each in its own order (Info-ZIP and `jar` depth first in the order the
/// file system lists a folder, `bsdtar` stating a folder's subfolders before it fills them, 7-Zip and
/// Python's `zipfile` in their own), installed a window at a time by `assetpack expand` (windows of 7
/// entries through the test seam): the exact tree. Killed after a few files, the staging tree is marked as
/// a windowed archive install's, which proves the windows were used; the next run finishes the tree.
@Suite struct WindowedInteropCLITests {
    let tool = builtProduct("assetpack")

    /// Folders three deep, some empty of files but not of folders, 60 files of 0–3,000 bytes.
    static let tree: ExpandCLITests.Files = {
        var random = SeededRandom(seed: 77)
        var files: ExpandCLITests.Files = [:]
        for index in 0..<60 {
            let folder = ["", "a/", "a/b/", "a/b/c/", "d/", "d/e/f/", "Z/"][index % 7]
            files["\(folder)file\(index).\(index % 3 == 0 ? "txt" : "bin")"] = random.bytes(Int(random.next() % 3_000))
        }
        return files
    }()

    static let writers: [(name: String, tool: ExternalTool, script: String)] = [
        ("zip -r", .zip, #"zip -q -r "$OUT" ."#),
        ("bsdtar", .bsdtar, #"bsdtar -a -cf "$OUT" ."#),
        ("7-Zip", .sevenZip, #"7z a -tzip -bd "$OUT" . > /dev/null"#),
        ("python zipfile", .python3, #"python3 -m zipfile -c "$OUT" *"#),
        ("jar", .jar, #"jar cfM "$OUT" ."#),
    ]

    @Test(arguments: writers.map(\.name))
    func anArchiveOfAnotherToolIsInstalledAWindowAtATimeExactly(writer: String) throws {
        let (_, external, script) = try #require(Self.writers.first { $0.name == writer })
        try external.require()
        let scratch = try TemporaryDirectory("cli-windowed-interop")
        try ExpandCLITests.write(Self.tree, to: scratch.file("tree"))
        _ = try shell(script, in: scratch.file("tree"), environment: ["OUT": scratch.file("tree.zip"),
                                                                        "PATH": ProcessInfo.processInfo.environment["PATH"] ?? ""])
        let windows = ["ASSETPACK_TEST_WINDOW_ITEMS": "7"]
        let killed = try run(tool, ["expand", scratch.file("tree.zip"), "--to", scratch.file("out"), "--jobs", "1"],
                             environment: windows.merging(["ASSETPACK_TEST_KILL_AFTER_FILES": "3"]) { $1 })
        #expect(killed.status == 128 + 9, "\(killed.stderr)")
        let marker = try? String(contentsOfFile: scratch.file(".out.assetpack-staging/.assetpack/staging"), encoding: .utf8)
        #expect(marker?.hasPrefix("assetpack-1 archive ") == true, "marked by the archive's fingerprint, to resume: \(marker ?? "none")")
        let finished = try run(tool, ["expand", scratch.file("tree.zip"), "--to", scratch.file("out")], environment: windows)
        #expect(finished.status == 0, "\(finished.stderr)")
        #expect(ExpandCLITests.read(scratch.file("out")) == Self.tree)
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path).sorted() == ["out", "tree", "tree.zip"])
        let again = try run(tool, ["expand", scratch.file("tree.zip"), "--to", scratch.file("out")], environment: windows)
        #expect(again.stdout.contains("up to date"), "\(again.stdout)")
    }
}
