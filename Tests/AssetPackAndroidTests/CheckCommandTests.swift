import AssetPack
import AssetPackPacker
import AssetPackZip
import Foundation
import Testing
import TestSupport

/// `assetpack check` end to end on containers made by the real tools: APKs by Android 10's `aapt`
/// (aligned by `zipalign` or not, one entry re-deflated by Info-ZIP `zip`), and App Bundle and IPA
/// layouts zipped by `zip -r` (`-9` deflates even .zip files; `-n .zip` keeps them stored). The exact stdout, stderr and exit status are checked.
@Suite(APKBuilder.aapt.needed, APKBuilder.zipalign.needed, ExternalTool.zip.needed)
struct CheckCommandTests {
    let tool = builtProduct("assetpack")

    init() throws {
        try ExternalTool.require(APKBuilder.aapt, APKBuilder.zipalign, ExternalTool.zip)
    }

    /// The assets: a small text file and a 70 kB binary (aapt stores both: deflate would not save), a
    /// 1.3 MB binary and a 1.2 MB text (packed into zips by the packer), an empty folder.
    static let tree: FolderTree = {
        var random = SeededRandom(seed: 14)
        return FolderTree(files: [
            "a.txt": Array("hello, assets\n".utf8),
            "data/level.bin": random.bytes(70_000),
            "big/model.bin": random.bytes(1_300_000),
            "big/words.txt": random.text(1_200_000),
        ], emptyFolders: ["empty"])
    }()

    /// Packs ``tree`` into `scratch/bundle` (as `assetpack build --pack-limit 0` does: small files stay
    /// plain, so a test can change one in place) and returns the bundle's path.
    @discardableResult
    func bundle(_ scratch: TemporaryDirectory) throws -> String {
        try Self.tree.write(to: scratch.file("source"))
        var rules = PackingRules()
        rules.packMemberLimit = 0
        _ = try Packer(options: BuildOptions(rules: rules)).build(source: scratch.file("source"), output: scratch.file("bundle"))
        return scratch.file("bundle")
    }

    /// `assetpack check ARGUMENTS` run in `scratch`.
    func check(_ arguments: [String], in scratch: TemporaryDirectory) throws -> CommandResult {
        try run(tool, ["check"] + arguments, cwd: scratch.path)
    }

    static let passing = """
        app.apk: bundle assets/: 4 files, 2 packed archives
          stored: ok, 2 packed archives stored
          aligned: ok, 4 stored entries at multiples of 4
          matches: ok, 4 files as the manifest records them
        app.apk: OK, 1 bundle checked

        """

    @Test func anAPKBuiltByAaptWithDefaultOptionsPasses() throws {
        let scratch = try TemporaryDirectory("check-apk")
        try APKBuilder.build(assets: try bundle(scratch), to: scratch.file("app.apk"), options: .init(noCompress: []))
        let result = try check(["app.apk"], in: scratch)
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result.stderr)")
        #expect(result.stdout == Self.passing)
        let json = try check(["--json", "app.apk"], in: scratch)
        #expect(json.status == 0)
        #expect(json.stdout == #"{"alignment":4,"bundles":[{"aligned":true,"alignedEntries":4,"archives":["assets/big/model.bin.zip","#
                + #""assets/big/words.txt.zip"],"files":4,"layout":"apk","manifest":"assets/assetpack-meta/manifest.json","#
                + #""matches":true,"root":"assets","stored":true}],"command":"check","file":"\#(scratch.file("app.apk"))","ok":true,"problems":[],"schema":1}"# + "\n")
    }

    @Test func aPackedArchiveDeflatedAgainByTheContainerIsReported() throws {
        let scratch = try TemporaryDirectory("check-recompressed")
        try APKBuilder.build(assets: try bundle(scratch), to: scratch.file("aapt.apk"), options: .init(noCompress: [], aligned: false))
        // A repackaging step that deflates what it adds: Info-ZIP `zip` compresses .zip files by default.
        try FileManager.default.createDirectory(atPath: scratch.file("stage/assets/big"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: scratch.file("bundle/big/words.txt.zip"), toPath: scratch.file("stage/assets/big/words.txt.zip"))
        let zipped = try run("zip", ["-q", "-9", scratch.file("aapt.apk"), "assets/big/words.txt.zip"], cwd: scratch.file("stage"))
        #expect(zipped.status == 0, "\(zipped.stderr)")
        try APKBuilder.align(scratch.file("aapt.apk"), to: scratch.file("app.apk"))
        let result = try check(["app.apk"], in: scratch)
        #expect(result.status == 1)
        #expect(result.stdout == """
            app.apk: bundle assets/: 4 files, 2 packed archives
              stored: 1 problem
                assets/big/words.txt.zip: is deflated by the container; a packed archive must be stored to be read in place (Gradle: noCompress += "zip"; aapt: -0 zip)
              aligned: ok, 3 stored entries at multiples of 4
              matches: ok, 4 files as the manifest records them

            """)
        #expect(result.stderr == "assetpack: error: app.apk: 1 problem in 1 bundle\n")
        let json = try check(["--json", "app.apk"], in: scratch)
        #expect(json.status == 1)
        #expect(json.stdout.contains(#""problems":[{"aspect":"stored","bundle":"assets","kind":"recompressed","message":"is deflated "#))
        #expect(json.stdout.contains(#""stored":false"#) && json.stdout.hasSuffix("}\n") && json.stdout.split(separator: "\n").count == 1)
    }

    @Test func storedDataOutOfAlignmentIsReportedWithItsOffset() throws {
        try ExternalTool.python3.require()
        let scratch = try TemporaryDirectory("check-misaligned")
        try APKBuilder.build(assets: try bundle(scratch), to: scratch.file("app.apk"), options: .init(noCompress: [], aligned: false))
        let misaligned = try expectedMisaligned(scratch.file("app.apk"), alignment: 4)
        try #require(!misaligned.isEmpty, "aapt alone leaves some stored data unaligned")
        let result = try check(["app.apk"], in: scratch)
        #expect(result.status == 1)
        #expect(result.stdout == """
            app.apk: bundle assets/: 4 files, 2 packed archives
              stored: ok, 2 packed archives stored
              aligned: \(misaligned.count) problem\(misaligned.count == 1 ? "" : "s")

            """ + misaligned.map { "    \($0.name): stored data starts at offset \($0.offset), not a multiple of 4, "
                + "so it cannot be mapped in place (zipalign 4)\n" }.joined() + """
              matches: ok, 4 files as the manifest records them

            """)
        #expect(result.stderr == "assetpack: error: app.apk: \(misaligned.count) problem\(misaligned.count == 1 ? "" : "s") in 1 bundle\n")
    }

    @Test func pageAlignmentIsAskedForWithPageAlign() throws {
        try ExternalTool.python3.require()
        let scratch = try TemporaryDirectory("check-page")
        try APKBuilder.build(assets: try bundle(scratch), to: scratch.file("app.apk"), options: .init(noCompress: []))
        let misaligned = try expectedMisaligned(scratch.file("app.apk"), alignment: 4096)
        let four = try check(["--page-align", "app.apk"], in: scratch)
        #expect(four.status == 1)
        #expect(four.stdout.contains("  aligned: \(misaligned.count) problem\(misaligned.count == 1 ? "" : "s")\n"))
        #expect(four.stdout.contains("    assets/big/model.bin.zip: stored data starts at offset \(misaligned.first { $0.name.hasSuffix("model.bin.zip") }?.offset ?? 0), not a multiple of 4096"))
        let paged = try run("zipalign", ["-f", "4096", scratch.file("app.apk"), scratch.file("paged.apk")])
        #expect(paged.status == 0, "\(paged.stderr)")
        let result = try check(["--page-align", "paged.apk"], in: scratch)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout == Self.passing.replacingOccurrences(of: "app.apk", with: "paged.apk")
                    .replacingOccurrences(of: "multiples of 4\n", with: "multiples of 4096\n"))
    }

    @Test func filesThatDisagreeWithTheManifestAreNamed() throws {
        let scratch = try TemporaryDirectory("check-matches")
        let bundle = try bundle(scratch)
        try Data("HELLO, ASSETS\n".utf8).write(to: URL(fileURLWithPath: bundle + "/a.txt"))  // same size, other bytes
        try FileManager.default.removeItem(atPath: bundle + "/data/level.bin")
        try APKBuilder.build(assets: bundle, to: scratch.file("app.apk"), options: .init(noCompress: []))
        let result = try check(["app.apk"], in: scratch)
        #expect(result.status == 1)
        #expect(result.stdout == """
            app.apk: bundle assets/: 4 files, 2 packed archives
              stored: ok, 2 packed archives stored
              aligned: ok, 3 stored entries at multiples of 4
              matches: 2 problems
                assets/a.txt: has CRC-32 \(hex(CRC32.checksum(Array("HELLO, ASSETS\n".utf8)))), the manifest records \(hex(CRC32.checksum(Array("hello, assets\n".utf8))))
                assets/data/level.bin: is listed in the manifest but missing from the container

            """)
        #expect(result.stderr == "assetpack: error: app.apk: 2 problems in 1 bundle\n")
    }

    @Test func anAppBundleZippedWithoutKeepingZipsStoredIsReported() throws {
        let scratch = try TemporaryDirectory("check-aab")
        try FileManager.default.createDirectory(atPath: scratch.file("aab/base/assets"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: scratch.file("aab/base/manifest"), withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: try bundle(scratch), toPath: scratch.file("aab/base/assets/assets.bundle"))
        try Data("<manifest/>".utf8).write(to: URL(fileURLWithPath: scratch.file("aab/base/manifest/AndroidManifest.xml")))
        for (name, options) in [("bad.aab", ["-q", "-r", "-9"]), ("good.aab", ["-q", "-r", "-n", ".zip"])] {
            let zipped = try run("zip", options + ["../" + name, "base"], cwd: scratch.file("aab"))
            #expect(zipped.status == 0, "\(zipped.stderr)")
        }
        let bad = try check(["bad.aab"], in: scratch)
        #expect(bad.status == 1)
        let fix = "a packed archive must be stored to be read in place (Gradle: noCompress += \"zip\"; aapt: -0 zip)"
        #expect(bad.stdout == """
            bad.aab: bundle base/assets/assets.bundle/: 4 files, 2 packed archives
              stored: 2 problems
                base/assets/assets.bundle/big/model.bin.zip: is deflated by the container; \(fix)
                base/assets/assets.bundle/big/words.txt.zip: is deflated by the container; \(fix)
              aligned: not checked, bundletool aligns the APKs it builds from an App Bundle
              matches: ok, 4 files as the manifest records them

            """)
        #expect(bad.stderr == "assetpack: error: bad.aab: 2 problems in 1 bundle\n")
        let good = try check(["good.aab"], in: scratch)
        #expect(good.status == 0, "\(good.stderr)")
        #expect(good.stdout == """
            good.aab: bundle base/assets/assets.bundle/: 4 files, 2 packed archives
              stored: ok, 2 packed archives stored
              aligned: not checked, bundletool aligns the APKs it builds from an App Bundle
              matches: ok, 4 files as the manifest records them
            good.aab: OK, 1 bundle checked

            """)
    }

    @Test func anIPAIsCheckedForItsFilesOnly() throws {
        let scratch = try TemporaryDirectory("check-ipa")
        try FileManager.default.createDirectory(atPath: scratch.file("ipa/Payload/App.app"), withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: try bundle(scratch), toPath: scratch.file("ipa/Payload/App.app/assets.bundle"))
        let zipped = try run("zip", ["-q", "-r", "../App.ipa", "Payload"], cwd: scratch.file("ipa"))
        #expect(zipped.status == 0, "\(zipped.stderr)")
        let result = try check(["App.ipa"], in: scratch)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == """
            App.ipa: bundle Payload/App.app/assets.bundle/: 4 files, 2 packed archives
              stored: not checked, an IPA is unpacked at install
              aligned: not checked, an IPA is unpacked at install
              matches: ok, 4 files as the manifest records them
            App.ipa: OK, 1 bundle checked

            """)
    }

    @Test func anAPKWithoutABundleAndAFolderAreOneLineEach() throws {
        let scratch = try TemporaryDirectory("check-none")
        try Self.tree.write(to: scratch.file("plain"))
        try APKBuilder.build(assets: scratch.file("plain"), to: scratch.file("app.apk"))
        let none = try check(["app.apk"], in: scratch)
        #expect(none.status == 1 && none.stdout.isEmpty)
        #expect(none.stderr == "assetpack: error: app.apk: holds no assetpack bundle "
                + "(no assetpack-meta/manifest.json at any depth)\n")
        let folder = try check(["plain"], in: scratch)
        #expect(folder.status == 64 && folder.stdout.isEmpty)
        #expect(folder.stderr == "assetpack: error: plain: is a folder; check reads an APK, AAB, IPA or zip "
                + "(assetpack verify checks a bundle folder)\n")
    }

    /// The stored members of the APK's bundle, in the order `check` reports them (plain files in manifest
    /// order, then the packed archives), whose data does not start at a multiple of `alignment`: offsets
    /// computed by Python's `zipfile` from each local header, independently of assetpack.
    private func expectedMisaligned(_ apk: String, alignment: UInt64) throws -> [(name: String, offset: UInt64)] {
        let python = try run("python3", ["-c", """
            import struct, sys, zipfile
            data = open(sys.argv[1], 'rb').read()
            for info in zipfile.ZipFile(sys.argv[1]).infolist():
                at = info.header_offset
                name_length, extra_length = struct.unpack('<HH', data[at + 26:at + 30])
                if info.compress_type == 0 and info.compress_size > 0:
                    print(f"{info.filename}\\t{at + 30 + name_length + extra_length}")
            """, apk])
        #expect(python.status == 0, "\(python.stderr)")
        var offsets: [String: UInt64] = [:]
        for line in python.stdout.split(separator: "\n") {
            let parts = line.split(separator: "\t")
            offsets[String(parts[0])] = UInt64(parts[1])
        }
        // In the manifest's order, as the check reads it: each packing archive where its first file comes.
        let order = ["assets/a.txt", "assets/big/model.bin.zip", "assets/big/words.txt.zip", "assets/data/level.bin"]
        return order.compactMap { name in offsets[name].flatMap { $0 % alignment == 0 ? nil : (name, $0) } }
    }
}
