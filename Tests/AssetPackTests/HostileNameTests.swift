import AssetPack
import AssetPackZip
import Foundation
import Testing
import TestSupport

/// Entry names that must never reach the file system, each in an archive built byte by byte (no writer
/// makes most of them on request), expanded both as an archive inside a tree and as the source itself.
/// Every one fails with `.unsafePath` naming the archive and the entry, before anything is written.
@Suite struct HostileNameTests {
    /// A hostile name: its raw bytes, the UTF-8 flag, and a piece of text the error must show.
    struct Name: Sendable, CustomTestStringConvertible {
        let label: String
        let bytes: [UInt8]
        var flags: UInt16 = 0
        let shown: String
        var testDescription: String { label }

        init(_ label: String, _ text: String, shown: String? = nil) {
            self.label = label
            bytes = Array(text.utf8)
            self.shown = shown ?? String(text.prefix(40))
        }

        init(_ label: String, raw: [UInt8], flags: UInt16 = 0, shown: String) {
            self.label = label
            bytes = raw
            self.flags = flags
            self.shown = shown
        }
    }

    static let outsideMarker = "assetpack-evil-\(UUID().uuidString.prefix(8))"

    static let names: [Name] = [
        Name("parent at the start", "../evil.txt"),
        Name("parent in the middle", "a/../../evil.txt"),
        Name("parent at the end", "a/b/.."),
        Name("parent alone", ".."),
        Name("parent as a folder entry", "../"),
        Name("absolute", "/tmp/\(outsideMarker)/evil.txt"),
        Name("absolute root", "/"),
        Name("backslash parent", "a\\..\\..\\evil.txt"),
        Name("drive letter and backslash", "C:\\evil.txt"),
        Name("drive-relative", "C:evil.txt"),
        Name("drive letter deeper", "a/c:evil.txt"),
        Name("UNC with backslashes", "\\\\server\\share\\evil.txt"),
        Name("UNC with slashes", "//server/share/evil.txt"),
        Name("NUL byte", raw: Array("ok.txt".utf8) + [0] + Array("/../../evil".utf8), shown: "ok.txt\\x00"),
        Name("empty", raw: [], shown: "entry \"\""),
        Name("dot", "."),
        // A leading `./` alone is read away (`./a` is `a`, ZipSourcePlannerTests), never what follows it:
        Name("dot then parent", "./../evil.txt"),
        Name("dots then parent", "././../evil.txt"),
        Name("dot in the middle", "a/./evil.txt"),
        Name("empty component", "a//evil.txt"),
        Name("newline", "a\nb.txt", shown: "a\\nb.txt"),
        Name("escape sequence", "\u{1B}[31mred.txt", shown: "\\x1b[31mred.txt"),
        Name("DEL", "a\u{7F}.txt", shown: "a\\x7f.txt"),
        Name("C1 control", "a\u{9B}b.txt", shown: "a\\x9bb.txt"),
        Name("component of 256 bytes", String(repeating: "x", count: 256), shown: String(repeating: "x", count: 40)),
        Name("path of 3,073 bytes", (0..<15).map { _ in String(repeating: "p", count: 200) }.joined(separator: "/") + "/"
             + String(repeating: "q", count: 58)),
        Name("nested 129 levels", Array(repeating: "d", count: 129).joined(separator: "/")),
        Name("UTF-8 flag with invalid bytes", raw: [0x66, 0xFF, 0xFE, 0x2E, 0x74], flags: 1 << 11, shown: "not UTF-8"),
    ]

    @Test(arguments: names, Placement.allCases)
    func isRefusedBeforeAnythingIsWritten(_ name: Name, _ placement: Placement) throws {
        let stage = try HostileStage("name")
        let bytes = rawZip([RawZip.file("fine.txt", Array("fine".utf8)), RawZip.file(raw: name.bytes, [6, 6, 6], flags: name.flags)])
        let error = try stage.refuse(bytes, placement)
        expectError(error, .unsafePath, mentions: [stage.archivePath(placement).shown, name.shown])
        stage.expectIntact(absent: ["fine.txt"])
        #expect(!FileManager.default.fileExists(atPath: "/tmp/\(Self.outsideMarker)"))
        #expect(!FileManager.default.fileExists(atPath: stage.scratch.file("out/evil.txt")))
        // Nothing was even staged: names are checked while planning.
        #expect(!FileManager.default.fileExists(atPath: stage.scratch.file("out/.assets.assetpack-staging")))
    }

    @Test(arguments: ["1/..", "../x", ".", "/", "a//b", "\\x"])
    func aBadNameOutsideTheRootOfAnArchiveSourceIsNeverLookedAt(_ name: String) throws {
        // Only the subtree under the root is expanded (an APK's assets/), so only its names are checked.
        let scratch = try TemporaryDirectory("name-root")
        try RawZip([RawZip.file("assets/ok.txt", [1]), RawZip.file(name, [2]), RawZip.file("other/" + name, [3])])
            .write(to: scratch.file("app.apk"))
        let source = try ZipAssetSource(path: scratch.file("app.apk"), root: "assets")
        try AssetInstaller(source: source, destination: scratch.file("assets")).installSynchronously()
        #expect(DiskTree.read(scratch.file("assets"))?.files == ["ok.txt": [1]])
    }

    @Test(arguments: ["/assets/evil.txt", "assets//evil.txt", "assets/../assets/x/../../evil.txt", "assets/./evil.txt"])
    func aBadNameThatAnIndexWouldFoldUnderTheRootIsRefused(_ name: String) throws {
        let scratch = try TemporaryDirectory("name-fold")
        try RawZip([RawZip.file("assets/ok.txt", [1]), RawZip.file(name, [2])]).write(to: scratch.file("app.apk"))
        let source = try ZipAssetSource(path: scratch.file("app.apk"), root: "assets")
        let error = #expect(throws: AssetPackError.self) {
            try AssetInstaller(source: source, destination: scratch.file("assets")).installSynchronously()
        }
        expectError(error, .unsafePath, mentions: ["app.apk", name])
        #expect(!FileManager.default.fileExists(atPath: scratch.file("assets")))
    }

    @Test func aPathWithinTheLimitInsideTheArchiveButTooLongWhereTheArchiveSitsIsRefused() throws {
        // 2,000 bytes of folders around the archive plus a 1,500-byte entry name: each fits, together they do not.
        let stage = try HostileStage("name-longpath")
        let folders = (0..<10).map { _ in String(repeating: "f", count: 199) }.joined(separator: "/")
        let entry = (0..<6).map { _ in String(repeating: "e", count: 249) }.joined(separator: "/")
        try RawZip([RawZip.file(entry, [1])]).write(to: stage.scratch.file("tree/\(folders)/pack.zip"))
        let error = stage.refuse(.inTree)
        expectError(error, .unsafePath, mentions: ["pack.zip", "longer than 3072 bytes"])
        stage.expectIntact()
    }

    @Test(arguments: Placement.allCases)
    func anInvalidUTF8NameWithoutTheFlagIsCodePage437Text(_ placement: Placement) throws {
        // Policy: before the UTF-8 flag, zip names were IBM code page 437, so "caf" + 0x82 is "café".
        let stage = try HostileStage("name-cp437")
        let path = stage.archivePath(placement).path
        try makeParent(path)
        let name: [UInt8] = [0x63, 0x61, 0x66, 0x82, 0x2E, 0x74, 0x78, 0x74]
        try Data(rawZip([RawZip.file(raw: name, Array("latte".utf8))])).write(to: URL(fileURLWithPath: path))
        let tree = try stage.accept(placement)
        #expect(tree?.files == ["caf\u{E9}.txt": Array("latte".utf8)])
        #expect(FileManager.default.fileExists(atPath: stage.destination + "/caf\u{E9}.txt"))
    }

    @Test func theLimitsAreTheDocumentedOnes() {
        #expect(AssetPath.maxComponentBytes == 255)
        #expect(AssetPath.maxPathBytes == 3_072)
        #expect(AssetPath.maxDepth == 128)
        #expect(throws: Never.self) { try AssetPath(String(repeating: "x", count: 255)) }
        #expect(throws: Never.self) { try AssetPath(Array(repeating: "d", count: 128).joined(separator: "/")) }
        var path = AssetPath.root
        for letter in "abcdefghijkl" { path = try! path.appending(String(repeating: letter, count: 255)) }  // 3,071 bytes
        #expect(path.string.utf8.count == 3_071)
        #expect(throws: AssetPackError.self) { try path.appending("m") }
    }
}
