import AssetPack
import AssetPackZip
import Foundation
import Testing
import TestSupport

/// Archives that other tools make with features this package does not read: encryption (ZipCrypto,
/// WinZip AES), methods other than stored and deflate, archives split over several files. Each is a clear
/// error naming the archive, the entry and the feature — never a silent skip of the entries it cannot
/// read — and nothing is written. A test whose tool is not installed is skipped (see `ExternalTool`).
@Suite struct UnsupportedTests {
    struct Tool: Sendable, CustomTestStringConvertible {
        let label: String
        let tool: String
        /// Run in a folder holding `a.txt` and `b.txt`; must write `out.zip`.
        let script: String
        let code: AssetPackError.Code
        let mentions: [String]
        var testDescription: String { label }
    }

    static let tools: [Tool] = [
        Tool(label: "ZipCrypto (zip -P)", tool: "zip", script: "zip -q -P secret out.zip a.txt b.txt",
             code: .unsupported, mentions: ["\"a.txt\"", "encrypted"]),
        Tool(label: "AES-256 (7z -mem=AES256)", tool: "7z", script: "7z a -tzip -mem=AES256 -psecret out.zip a.txt b.txt >/dev/null",
             code: .unsupported, mentions: ["\"a.txt\"", "encrypted"]),
        Tool(label: "BZip2 (7z -mm=BZip2)", tool: "7z", script: "7z a -tzip -mm=BZip2 out.zip a.txt b.txt >/dev/null",
             code: .unsupported, mentions: ["\"a.txt\"", "bzip2 (12)", "not supported"]),
        Tool(label: "LZMA (7z -mm=LZMA)", tool: "7z", script: "7z a -tzip -mm=LZMA out.zip a.txt b.txt >/dev/null",
             code: .unsupported, mentions: ["\"a.txt\"", "lzma (14)", "not supported"]),
        Tool(label: "Deflate64 (7z -mm=Deflate64)", tool: "7z", script: "7z a -tzip -mm=Deflate64 out.zip a.txt b.txt >/dev/null",
             code: .unsupported, mentions: ["\"a.txt\"", "deflate64 (9)", "not supported"]),
    ]

    static let text: [UInt8] = { var random = SeededRandom(seed: 21); return random.text(10_000) }()

    /// The archive `tool` makes of two text files.
    static func make(_ tool: Tool) throws -> [UInt8] {
        try (tool.tool == "7z" ? ExternalTool.sevenZip : ExternalTool.zip).require()
        let work = try TemporaryDirectory("unsupported-make")
        try work.write("a.txt", text)
        try work.write("b.txt", Array(text.reversed()))
        let result = try run("/bin/sh", ["-c", tool.script], cwd: work.path)
        #expect(result.status == 0, "\(tool.script): \(result.stderr)")
        return Array(try Data(contentsOf: URL(fileURLWithPath: work.file("out.zip"))))
    }

    @Test(ExternalTool.zip.needed, arguments: tools.filter { $0.tool == "zip" }, Placement.allCases)
    func infoZipFeatureIsAClearError(_ tool: Tool, _ placement: Placement) throws {
        try isAClearErrorNotASkip(tool, placement)
    }

    @Test(ExternalTool.sevenZip.needed, arguments: tools.filter { $0.tool == "7z" }, Placement.allCases)
    func sevenZipFeatureIsAClearError(_ tool: Tool, _ placement: Placement) throws {
        try isAClearErrorNotASkip(tool, placement)
    }

    private func isAClearErrorNotASkip(_ tool: Tool, _ placement: Placement) throws {
        let bytes = try Self.make(tool)
        let stage = try HostileStage("unsupported")
        let error = try stage.refuse(bytes, placement)
        expectError(error, tool.code, mentions: [stage.archivePath(placement).shown] + tool.mentions)
        stage.expectIntact(absent: ["a.txt", "b.txt"])
        #expect(!FileManager.default.fileExists(atPath: stage.scratch.file("out/.assets.assetpack-staging")), "refused while planning")
    }

    @Test(ExternalTool.zip.needed, arguments: Placement.allCases)
    func aSplitArchiveIsAClearError(_ placement: Placement) throws {
        try ExternalTool.zip.require()
        let work = try TemporaryDirectory("unsupported-split")
        var random = SeededRandom(seed: 22)
        try work.write("big.bin", random.bytes(150_000))
        let made = try run("/bin/sh", ["-c", "zip -q -s 64k split.zip big.bin"], cwd: work.path)
        #expect(made.status == 0, "\(made.stderr)")
        #expect(folderNames(work.path).filter { $0.hasPrefix("split.z") }.count > 1, "zip made no split archive")
        let stage = try HostileStage("unsupported-split")
        if placement == .inTree {
            // The parts travel together: split.z01, split.z02 beside split.zip.
            for part in folderNames(work.path) where part.hasPrefix("split.z") && part != "split.zip" {
                try FileManager.default.createDirectory(atPath: stage.scratch.file("tree"), withIntermediateDirectories: true)
                try FileManager.default.copyItem(atPath: work.file(part), toPath: stage.scratch.file("tree/" + part))
            }
        }
        let error = try stage.refuse(Array(try Data(contentsOf: URL(fileURLWithPath: work.file("split.zip")))), placement)
        expectError(error, .archive, mentions: [stage.archivePath(placement).shown, "multi-disk"])
        #expect(error?.zipError?.code == .unsupportedFeature)
        stage.expectIntact(absent: ["big.bin"])
    }
}
