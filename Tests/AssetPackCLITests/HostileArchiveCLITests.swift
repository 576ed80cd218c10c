import Foundation
import Testing
import TestSupport

/// What a user sees when `assetpack expand` meets a hostile or broken input, or a fault of the machine:
/// the exit status of its class, exactly ONE line on stderr — `assetpack: error: ` then the archive, the entry and the
/// reason — nothing on stdout, the previous complete tree untouched, and nothing written outside. Also
/// process faults only a child process can have: a file-size limit (`ulimit -f`), another user, SIGKILL
/// at random moments.
@Suite struct HostileArchiveCLITests {
    let tool = builtProduct("assetpack")

    /// The previous version every failed run must leave as it was.
    static let previous: ExpandCLITests.Files = ["keep.txt": Array("the previous version\n".utf8),
                                                 "d/old.bin": Array(repeating: 7, count: 3_000)]

    /// A scratch folder whose `out/assets` holds ``previous``, expanded by the CLI.
    func stage(_ label: String) throws -> (TemporaryDirectory, String) {
        let scratch = try TemporaryDirectory(label)
        try ExpandCLITests.write(Self.previous, to: scratch.file("previous"))
        let destination = scratch.file("out/assets")
        let first = try run(tool, ["expand", scratch.file("previous"), "--to", destination])
        #expect(first.status == 0, "\(first.stderr)")
        return (scratch, destination)
    }

    /// Checks the one-line failure and that the destination still holds `holding` (nil: it does not exist).
    func expectOneLineFailure(_ result: CommandResult, status: Int32?, mentions: [String], destination: String,
                              holding: ExpandCLITests.Files? = previous, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.status == status, "exit status \(result.status): \(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stdout.isEmpty, "stdout: \(result.stdout)", sourceLocation: sourceLocation)
        let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 2 && lines[1].isEmpty, "not one line: \(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stderr.hasPrefix("assetpack: error: "), "\(result.stderr)", sourceLocation: sourceLocation)
        for text in mentions {
            #expect(result.stderr.contains(text), "\(result.stderr) does not mention \(text)", sourceLocation: sourceLocation)
        }
        #expect(treeDigest(destination) == ExpandCLITests.digest(holding), "the previous tree changed", sourceLocation: sourceLocation)
    }

    // MARK: - Hostile archives

    struct Hostile: Sendable, CustomTestStringConvertible {
        let label: String
        let bytes: @Sendable () throws -> [UInt8]
        let mentions: [String]
        var testDescription: String { label }
    }

    static let hostiles: [Hostile] = [
        Hostile(label: "parent escape", bytes: { RawZip([RawZip.file("ok.txt", [1]), RawZip.file("../../evil.txt", [6])]).bytes },
                mentions: ["\"../../evil.txt\"", "'..' component"]),
        Hostile(label: "absolute name", bytes: { RawZip([RawZip.file("/tmp/assetpack-cli-evil.txt", [6])]).bytes },
                mentions: ["\"/tmp/assetpack-cli-evil.txt\"", "absolute path"]),
        Hostile(label: "backslash name", bytes: { RawZip([RawZip.file("..\\evil.txt", [6])]).bytes },
                mentions: ["..\\evil.txt", "backslash"]),
        Hostile(label: "NUL in a name", bytes: { RawZip([RawZip.file(raw: Array("a".utf8) + [0] + Array("b".utf8), [6])]).bytes },
                mentions: ["\"a\\x00b\"", "NUL byte"]),
        Hostile(label: "newline and escape in a name", bytes: { RawZip([RawZip.file("line\n\u{1B}[2Jx.txt", [6])]).bytes },
                mentions: ["line\\n\\x1b[2Jx.txt", "control character"]),
        Hostile(label: "empty name", bytes: { RawZip([RawZip.file(raw: [], [6])]).bytes }, mentions: ["entry \"\"", "empty"]),
        Hostile(label: "symbolic link", bytes: { RawZip([RawZip.symlink("link", to: "/etc")]).bytes },
                mentions: ["\"link\"", "symbolic link"]),  // the advice differs by placement: HostileSymlinkTests
        Hostile(label: "duplicate names", bytes: { RawZip([RawZip.file("a.txt", [1]), RawZip.file("a.txt", [2])]).bytes },
                mentions: ["\"a.txt\"", "appears twice"]),
        Hostile(label: "case twins", bytes: { RawZip([RawZip.file("a.txt", [1]), RawZip.file("A.TXT", [2])]).bytes },
                mentions: ["\"a.txt\"", "\"A.TXT\"", "differ only in case"]),
        Hostile(label: "encrypted", bytes: { RawZip([RawZip.Entry(name: Array("secret.txt".utf8), data: [1, 2, 3], flags: 1)]).bytes },
                mentions: ["\"secret.txt\"", "encrypted"]),
        Hostile(label: "bzip2", bytes: { RawZip([RawZip.Entry(name: Array("b.txt".utf8), data: [1, 2, 3], method: 12)]).bytes },
                mentions: ["\"b.txt\"", "bzip2 (12)"]),
        Hostile(label: "CRC-32 mismatch", bytes: {
            var entry = RawZip.file("bad.bin", Array(repeating: 1, count: 5_000))
            entry.crc32 = 0x1234_5678
            entry.localCRC32 = 0x1234_5678
            return RawZip([RawZip.file("fine.txt", [1]), entry]).bytes
        }, mentions: ["\"bad.bin\"", "CRC-32 mismatch"]),
        // Found only while writing, after the staging tree was made: it must go again.
        Hostile(label: "damaged deflate data", bytes: {
            var random = SeededRandom(seed: 9)
            var entry = try RawZip.deflated("data.bin", random.text(60_000))
            for offset in stride(from: 40, to: 400, by: 7) { entry.data[offset] ^= 0xA5 }
            return RawZip([RawZip.file("fine.txt", [1]), entry]).bytes
        }, mentions: ["\"data.bin\""]),
        Hostile(label: "a size that lies", bytes: {
            var entry = RawZip.file("short.bin", Array(repeating: 3, count: 5_000))
            entry.uncompressedSize = 4_000
            entry.compressedSize = 4_000
            return RawZip([RawZip.file("fine.txt", [1]), entry]).bytes
        }, mentions: ["\"short.bin\""]),
        Hostile(label: "local header disagrees", bytes: {
            var entry = RawZip.file("named.bin", Array(repeating: 4, count: 5_000))
            entry.localName = Array("other.bin".utf8)
            return RawZip([RawZip.file("fine.txt", [1]), entry]).bytes
        }, mentions: ["\"named.bin\""]),
        Hostile(label: "ratio bomb", bytes: {
            // 8 MiB of zeros (1,030:1, a genuine stream) declared as 3.75 GiB: more than deflate can give.
            var bomb = try RawZip.deflated("zeros.bin", [UInt8](repeating: 0, count: 8 << 20))
            bomb.uncompressedSize = 0xF000_0000
            return RawZip([bomb]).bytes
        }, mentions: ["\"zeros.bin\"", "compression-ratio limit of 1032:1"]),
        Hostile(label: "directory local header names ../EVIL/", bytes: {
            var directory = RawZip.directory("d/")
            directory.localName = Array("../EVIL/".utf8)
            return RawZip([directory, RawZip.file("d/a.txt", [1])]).bytes
        }, mentions: ["\"d/\"", "local header names"]),
        Hostile(label: "damaged stored inner zip", bytes: {
            // pk/inner.zip, stored, with its entry's mode changed from 0644 to 0755 in its central directory
            // and the outer CRC-32 left as it was (unzip -t: "bad CRC").
            let inner = RawZip([RawZip.file("pk/in1.txt", Array("inner\n".utf8), mode: 0o644)]).build()
            var outer = RawZip([RawZip.file("pk/inner.zip", inner.bytes)]).build()
            outer.bytes.patch(UInt32(0o100755) << 16, at: outer.layout.dataOffsets[0] + inner.layout.centralOffsets[0] + 38)
            return outer.bytes
        }, mentions: ["\"pk/inner.zip\"", "CRC-32 mismatch"]),
        Hostile(label: "random bytes", bytes: { var random = SeededRandom(seed: 1); return random.bytes(50_000) },
                mentions: ["not a zip archive"]),
        Hostile(label: "empty file", bytes: { [] }, mentions: ["not a zip archive"]),
    ]

    @Test(arguments: hostiles)
    func anArchiveGivenAsTheSourceFailsWithOneLine(_ hostile: Hostile) throws {
        let (scratch, destination) = try stage("cli-hostile")
        try Data(try hostile.bytes()).write(to: URL(fileURLWithPath: scratch.file("hostile.zip")))
        let result = try run(tool, ["expand", scratch.file("hostile.zip"), "--to", destination])
        expectOneLineFailure(result, status: Self.exitStatus[hostile.label], mentions: [scratch.file("hostile.zip")] + hostile.mentions,
                             destination: destination)
        #expect(sortedNames(scratch.path) == ["hostile.zip", "out", "previous"])
        #expect(sortedNames(scratch.file("out")) == ["assets"], "a refused input leaves nothing beside the destination")
        #expect(!FileManager.default.fileExists(atPath: "/tmp/assetpack-cli-evil.txt"))
    }

    @Test(arguments: hostiles)
    func anArchiveInsideATreeFailsWithOneLine(_ hostile: Hostile) throws {
        let (scratch, destination) = try stage("cli-hostile-tree")
        try ExpandCLITests.write(["data/plain.txt": [1], "data/pack.zip": try hostile.bytes()], to: scratch.file("tree"))
        let result = try run(tool, ["expand", scratch.file("tree"), "--to", destination])
        // Names inside the archive are shown below the folder it sits in: "data/a.txt".
        let mentions = hostile.mentions.map { $0.hasPrefix("\"") && $0 != "\"\"" ? String($0.dropFirst()) : $0 }
        expectOneLineFailure(result, status: Self.exitStatus[hostile.label], mentions: [Self.naming(scratch.file("tree"), hostile)] + mentions,
                             destination: destination)
        #expect(sortedNames(scratch.path) == ["out", "previous", "tree"])
        #expect(sortedNames(scratch.file("out")) == ["assets"], "a refused input leaves nothing beside the destination")
    }

    /// How the line names `source` holding `data/pack.zip`: `SOURCE: data/pack.zip: …`, or for two entries of
    /// it that collide, `SOURCE: …` and each entry `(from data/pack.zip)`.
    static func naming(_ source: String, _ hostile: Hostile) -> String {
        ["duplicate names", "case twins"].contains(hostile.label) ? source + ": " : source + ": data/pack.zip"
    }

    /// An archive inside the archive given: the line names the archive given, then the one inside it.
    @Test(arguments: hostiles)
    func anArchiveInsideAnArchiveFailsWithOneLineNamingBoth(_ hostile: Hostile) throws {
        let (scratch, destination) = try stage("cli-hostile-nested")
        try RawZip([RawZip.file("data/plain.txt", [1]), RawZip.file("data/pack.zip", try hostile.bytes())]).write(to: scratch.file("outer.zip"))
        let result = try run(tool, ["expand", scratch.file("outer.zip"), "--to", destination])
        let mentions = hostile.mentions.map { $0.hasPrefix("\"") && $0 != "\"\"" ? String($0.dropFirst()) : $0 }
        expectOneLineFailure(result, status: Self.exitStatus[hostile.label],
                             mentions: [Self.naming(scratch.file("outer.zip"), hostile)] + mentions, destination: destination)
        #expect(sortedNames(scratch.file("out")) == ["assets"], "a refused input leaves nothing beside the destination")
    }

    /// Files in `.assetpack/` at the top of a source without a manifest (the record's name, and the legacy
    /// bundles' bookkeeping folder) are refused as conflicts, as in an archive of a tree, never dropped
    /// while the rest expands ("expanded 1 files").
    @Test(arguments: ["zip", "folder"])
    func theRecordsNameAtTheTopOfASourceFailsWithOneLine(_ form: String) throws {
        let (scratch, destination) = try stage("cli-record-name")
        let files: ExpandCLITests.Files = ["a.txt": [1], ".assetpack/user-data.bin": [2], ".assetpack/sub/x.txt": [3]]
        let source = scratch.file(form == "zip" ? "x.zip" : "tree")
        if form == "zip" {
            try RawZip(files.keys.sorted().map { RawZip.file($0, files[$0]!) }).write(to: source)
        } else {
            try ExpandCLITests.write(files, to: source)
        }
        let result = try run(tool, ["expand", source, "--to", destination])
        expectOneLineFailure(result, status: 77, mentions: [source, ".assetpack", "reserved"], destination: destination)
        #expect(sortedNames(scratch.file("out")) == ["assets"], "a refused input leaves nothing beside the destination")
    }

    /// The exit status of each hostile input's class (README, "Exit status"): refused by policy (77) or
    /// damaged (65).
    static let exitStatus: [String: Int32] = [
        "parent escape": 77, "absolute name": 77, "backslash name": 77, "NUL in a name": 77,
        "newline and escape in a name": 77, "empty name": 77, "symbolic link": 77, "FIFO": 77, "duplicate names": 77,
        "case twins": 77, "encrypted": 77, "bzip2": 77, "ratio bomb": 77,
        "CRC-32 mismatch": 65, "random bytes": 65, "empty file": 65,
        "damaged deflate data": 65, "damaged stored inner zip": 65,
        "directory local header names ../EVIL/": 65, "a size that lies": 65, "local header disagrees": 65,
    ]

    @Test func aFileOfOneRepeatedByteIsNoBomb() throws {
        // 2 MiB of zeros at level 9 (as `zip -9`): about 1,023:1, within deflate's ceiling, so verify and expand accept it.
        let (scratch, destination) = try stage("cli-blank")
        let blank = [UInt8](repeating: 0, count: 2 << 20)
        try writeBytes(RawZip([try RawZip.deflated("z.bin", blank)]).bytes, to: scratch.file("z.zip"))
        let verified = try run(tool, ["verify", scratch.file("z.zip")])
        #expect(verified.status == 0, "\(verified.stderr)")
        let expanded = try run(tool, ["expand", scratch.file("z.zip"), "--to", destination])
        #expect(expanded.status == 0, "\(expanded.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: destination + "/z.bin")) == Data(blank))
    }

    // MARK: - Faults of the machine

    @Test func aFileSizeLimitIsAClearErrorAndTheNextRunSucceeds() throws {
        // `ulimit -f 64` (32 KiB): writing a larger file fails with EFBIG (the CLI ignores SIGXFSZ), as on a full disk.
        let (scratch, destination) = try stage("cli-fsize")
        var random = SeededRandom(seed: 5)
        let next: ExpandCLITests.Files = ["keep.txt": Array("next\n".utf8), "big/large.bin": random.bytes(200_000)]
        try ExpandCLITests.write(next, to: scratch.file("next"))
        let limited = try run("/bin/sh", ["-c", "ulimit -f 64; exec \"$0\" \"$@\"", tool, "expand", scratch.file("next"),
                                           "--to", destination, "--jobs", "1"])
        expectOneLineFailure(limited, status: 74, mentions: ["large.bin", "file too large"], destination: destination)
        let staging = scratch.file("out/.assets.assetpack-staging")
        let staged = (FileManager.default.enumerator(atPath: staging)?.allObjects as? [String]) ?? []
        #expect(!staged.contains { $0.contains(".assetpack-tmp-") }, "\(staged)")
        #expect(!staged.contains("big/large.bin"), "the file cut short was left in staging")
        let again = try run(tool, ["expand", scratch.file("next"), "--to", destination])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(treeDigest(destination) == ExpandCLITests.digest(next))
        #expect(sortedNames(scratch.file("out")) == ["assets"])
    }

    /// A bundle of more archives than the process may hold descriptors (macOS allows 256 by default): each
    /// archive is let go once its files are written, so few are open at any time; and the final flush, per
    /// file (whose workers hold a batch of files open each) or whole, stays within the limit too.
    @Test(arguments: ["files", "filesystem"])
    func aBundleOfManyArchivesExpandsWithFewDescriptors(flush: String) throws {
        let scratch = try TemporaryDirectory("cli-nofile")
        let files: ExpandCLITests.Files = Dictionary(uniqueKeysWithValues: (0..<300).map { ("d\($0 % 7)/f\($0).txt", Array("file \($0)\n".utf8)) })
        try ExpandCLITests.write(files, to: scratch.file("src"))
        let built = try run(tool, ["build", scratch.file("src"), "-o", scratch.file("many.bundle"), "--threshold", "0"])
        #expect(built.status == 0, "\(built.stderr)")
        let names = (FileManager.default.enumerator(atPath: scratch.file("many.bundle"))?.allObjects as? [String]) ?? []
        #expect(names.filter { $0.hasSuffix(".txt.zip") }.count == 300, "each file in an archive of its own")
        let limited = try run("/bin/sh", ["-c", "ulimit -n 48; exec \"$0\" \"$@\"", tool, "expand", scratch.file("many.bundle"),
                                           "--to", scratch.file("out")], environment: ["ASSETPACK_TEST_FLUSH": flush])
        #expect(limited.status == 0, "\(limited.stderr)")
        #expect(treeDigest(scratch.file("out")) == ExpandCLITests.digest(files))
    }

    @Test(.enabled(if: getuid() == 0 && toolExists("setpriv"), "needs root and setpriv"))
    func anotherUserWithoutWriteAccessGetsAClearError() throws {
        let scratch = try TemporaryDirectory("cli-nobody")
        try ExpandCLITests.write(Self.previous, to: scratch.file("src"))
        try FileManager.default.createDirectory(atPath: scratch.file("locked"), withIntermediateDirectories: true)
        for path in [scratch.path, scratch.file("src"), scratch.file("src/d"), scratch.file("locked")] {
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
        }
        let nobody = ["--reuid=65534", "--regid=65534", "--clear-groups", tool, "expand", scratch.file("src")]
        // Both name the folder that refused the write, in plain words.
        let refused = "assetpack: error: \(scratch.file("locked")): permission denied: cannot write here\n"
        let parent = try run("setpriv", nobody + ["--to", scratch.file("locked/assets")])
        expectOneLineFailure(parent, status: 74, mentions: [], destination: scratch.file("locked/assets"), holding: nil)
        #expect(parent.stderr == refused)
        let deeper = try run("setpriv", nobody + ["--to", scratch.file("locked/sub/assets")])
        expectOneLineFailure(deeper, status: 74, mentions: [], destination: scratch.file("locked/sub/assets"), holding: nil)
        #expect(deeper.stderr == refused)
        #expect(sortedNames(scratch.file("locked")) == [])
    }

    @Test(.enabled(if: getuid() == 0 && toolExists("setpriv"), "needs root and setpriv"))
    func aSubfolderTheAppMadeReadOnlyDoesNotBlockTheNextVersion() throws {
        // The previous tree is removed after the switch; folders without owner write (or any) permission in
        // it get it back first, so the upgrade completes instead of failing on every later run.
        let scratch = try TemporaryDirectory("cli-nobody-subfolder")
        try ExpandCLITests.write(Self.previous.merging(["e/e.txt": [1]]) { $1 }, to: scratch.file("v1"))
        try ExpandCLITests.write(["keep.txt": Array("next\n".utf8)], to: scratch.file("v2"))
        try FileManager.default.createDirectory(atPath: scratch.file("out"), withIntermediateDirectories: true)
        _ = try run("/bin/chmod", ["-R", "a+rX", scratch.path])
        _ = try run("/bin/chown", ["nobody", scratch.file("out")])
        let nobody = ["--reuid=65534", "--regid=65534", "--clear-groups", tool, "expand"]
        let destination = scratch.file("out/assets")
        #expect(try run("setpriv", nobody + [scratch.file("v1"), "--to", destination]).status == 0)
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: destination + "/d")
        try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: destination + "/e")
        let upgrade = try run("setpriv", nobody + [scratch.file("v2"), "--to", destination])
        #expect(upgrade.status == 0, "\(upgrade.stderr)")
        #expect(treeDigest(destination) == ExpandCLITests.digest(["keep.txt": Array("next\n".utf8)]))
        #expect(sortedNames(scratch.file("out")) == ["assets"])
    }

    @Test(.enabled(if: getuid() == 0, "needs root to mount"))
    func aReadOnlyDestinationIsAClearError() throws {
        let (scratch, destination) = try stage("cli-ro")
        // A read-only bind mount of the folder that holds the destination.
        #expect(try run("/bin/mount", ["--bind", scratch.file("out"), scratch.file("out")]).status == 0)
        defer { _ = try? run("/bin/umount", ["-l", scratch.file("out")]) }
        #expect(try run("/bin/mount", ["-o", "remount,bind,ro", scratch.file("out")]).status == 0)
        try ExpandCLITests.write(["keep.txt": Array("next\n".utf8)], to: scratch.file("next"))
        let result = try run(tool, ["expand", scratch.file("next"), "--to", destination])
        expectOneLineFailure(result, status: 74, mentions: [], destination: destination)
        #expect(result.stderr == "assetpack: error: \(scratch.file("out")): read-only file system: cannot write here\n")
    }

    @Test func aDestinationThatIsAFileIsAClearError() throws {
        let scratch = try TemporaryDirectory("cli-file")
        try ExpandCLITests.write(Self.previous, to: scratch.file("src"))
        try scratch.write("assets", text: "mine")
        let result = try run(tool, ["expand", scratch.file("src"), "--to", scratch.file("assets")])
        #expect(result.status == 64)
        #expect(result.stderr == "assetpack: error: \(scratch.file("assets")): the destination exists and is not a folder\n")
        #expect(try String(contentsOfFile: scratch.file("assets"), encoding: .utf8) == "mine")
    }

    @Test func aDestinationThatIsALinkToAFolderIsAClearError() throws {
        let scratch = try TemporaryDirectory("cli-link")
        try ExpandCLITests.write(Self.previous, to: scratch.file("src"))
        try FileManager.default.createDirectory(atPath: scratch.file("real"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: scratch.file("assets"), withDestinationPath: scratch.file("real"))
        let result = try run(tool, ["expand", scratch.file("src"), "--to", scratch.file("assets")])
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("assetpack: error: \(scratch.file("assets")): the destination is a symbolic link; give the folder itself"))
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.file("real")).isEmpty)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: scratch.file("assets")) == scratch.file("real"))
    }

    @Test func killedAtRandomMomentsTheNextRunAlwaysProducesTheExactTree() throws {
        // 20 trials: SIGKILL after a seeded random delay, then a normal run must give the exact tree. Even
        // trials kill a first expansion, odd ones an upgrade (whose previous version must survive the kill).
        // The delays spread over one whole run (up to 300 ms), so kills land in every phase.
        let scratch = try TemporaryDirectory("cli-random-kill")
        // On a tmpfs when this process may mount one: the commit's syncfs then costs nothing and 20 trials
        // stay quick (a kill loses no page cache, so what survives is the same as on a disk).
        let mounted = getuid() == 0
            && (try? run("/bin/mount", ["-t", "tmpfs", "-o", "size=512m", "tmpfs", scratch.path]))?.status == 0
        defer { if mounted { _ = try? run("/bin/umount", ["-l", scratch.path]) } }
        var random = SeededRandom(seed: 77)
        var expected: ExpandCLITests.Files = [:]
        // About 30 MB in 260 files, one of them an archive to unzip.
        for index in 0..<240 { expected["level\(index % 8)/chunk\(index).bin"] = random.bytes(100_000) }
        expected["text/story.txt"] = random.text(4_000_000)
        var photos: [RawZip.Entry] = []
        for index in 0..<20 {
            let photo = random.bytes(50_000)
            expected["packed/photos/p\(index).jpg"] = photo
            photos.append(RawZip.file("photos/p\(index).jpg", photo))
        }
        var source = expected.filter { !$0.key.hasPrefix("packed/") }
        source["packed/photos.zip"] = RawZip(photos).bytes
        try ExpandCLITests.write(source, to: scratch.file("src"))
        try ExpandCLITests.write(Self.previous, to: scratch.file("old"))
        let wanted = crcDigest(expected), old = crcDigest(Self.previous)
        let destination = scratch.file("assets")
        let started = Date()
        #expect(try run(tool, ["expand", scratch.file("src"), "--to", destination, "--quiet", "--jobs", "1"]).status == 0)
        let longest = min(0.3, 1.2 * Date().timeIntervalSince(started))
        var killedMidway = 0
        for trial in 0..<20 {
            try? FileManager.default.removeItem(atPath: destination)
            let upgrade = trial % 2 == 1
            if upgrade { #expect(try run(tool, ["expand", scratch.file("old"), "--to", destination, "--quiet"]).status == 0) }
            let delay = longest * Double(random.next() % 1_000) / 1_000
            let process = Process()
            process.executableURL = URL(fileURLWithPath: tool)
            process.arguments = ["expand", scratch.file("src"), "--to", destination, "--quiet", "--jobs", "1"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            Thread.sleep(forTimeInterval: delay)
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
            let killed = process.terminationReason == .uncaughtSignal
            if killed { killedMidway += 1 }
            let after = crcDigest(at: destination)
            if killed && upgrade {
                #expect(after == old || after == wanted, "trial \(trial) (\(delay) s): the destination is neither version")
            } else if killed {
                #expect(after == nil || after == wanted, "trial \(trial) (\(delay) s): a partial tree is visible")
            }
            let resumed = try run(tool, ["expand", scratch.file("src"), "--to", destination, "--quiet"])
            #expect(resumed.status == 0, "trial \(trial) (\(delay) s): \(resumed.stderr)")
            #expect(crcDigest(at: destination) == wanted, "trial \(trial) (\(delay) s)")
            #expect(sortedNames(scratch.path) == ["assets", "old", "src"], "trial \(trial)")
        }
        #expect(killedMidway >= 6, "only \(killedMidway) of 20 runs were killed before they finished")
    }
}

/// Path → size and CRC-32 of every file of a tree: a cheap stand-in for comparing large trees.
private func crcDigest(_ files: ExpandCLITests.Files) -> [String: String] {
    files.mapValues { "\($0.count) bytes, CRC-32 \(RawZip.crc32(of: $0))" }
}

/// ``crcDigest(_:)`` of the tree at `path`, or nil when nothing is there.
private func crcDigest(at path: String) -> [String: String]? {
    FileManager.default.fileExists(atPath: path) ? ExpandCLITests.read(path).map(crcDigest) : nil
}

/// A short stand-in for the tree at `path` (nil when nothing is there), for comparisons whose failure
/// message must stay readable.
private func treeDigest(_ path: String) -> [String: String]? {
    FileManager.default.fileExists(atPath: path) ? ExpandCLITests.digest(ExpandCLITests.read(path)) : nil
}

/// The names in the folder `path`, sorted (hidden ones included).
private func sortedNames(_ path: String) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted()
}
