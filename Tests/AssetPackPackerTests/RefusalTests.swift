import AssetPack
import Foundation
import Testing
import TestSupport
@testable import AssetPackPacker

/// Clear errors: symlinks, misplaced outputs, missing sources, reserved names.
@Suite struct RefusalTests {
    @Test func symlinkIsRefusedNamingTheLink() throws {
        let dir = try TemporaryDirectory("symlink")
        try dir.write("src/real.txt", text: "real")
        try FileManager.default.createSymbolicLink(atPath: dir.file("src/link.txt"), withDestinationPath: "real.txt")
        let error = expectError { try build(dir.file("src"), dir.file("out")) }
        #expect(error?.code == .symlink)
        #expect(error?.path == dir.file("src/link.txt"))
        #expect(error?.description.contains("--follow-symlinks") == true)
        #expect(!FileManager.default.fileExists(atPath: dir.file("out")))
    }

    @Test func followSymlinksPacksTheTargets() throws {
        let dir = try TemporaryDirectory("follow")
        try dir.write("shared/common.txt", text: "shared outside the source")
        try dir.write("src/real.txt", text: "real")
        try FileManager.default.createSymbolicLink(atPath: dir.file("src/link.txt"), withDestinationPath: "real.txt")
        try FileManager.default.createSymbolicLink(atPath: dir.file("src/shared"), withDestinationPath: dir.file("shared"))
        try build(dir.file("src"), dir.file("out"), followSymlinks: true)
        try TestUnpacker.unpack(bundle: dir.file("out"), to: dir.file("back"))
        #expect(try fileBytes(dir.file("back/link.txt")) == Array("real".utf8))
        #expect(try fileBytes(dir.file("back/shared/common.txt")) == Array("shared outside the source".utf8))
    }

    /// A graph of links that reaches folders again and again (each level links twice to the next: 2^20 paths)
    /// is refused at the second way into a folder, at once, instead of walking without end.
    @Test func aFolderReachedTwiceThroughLinksIsRefusedAtOnce() throws {
        let dir = try TemporaryDirectory("link-graph")
        for level in 0..<20 {
            try dir.write("levels/\(level)/file.txt", text: "level \(level)")
            for copy in ["x", "y"] {
                try FileManager.default.createSymbolicLink(atPath: dir.file("levels/\(level)/\(copy)"),
                                                           withDestinationPath: dir.file("levels/\(level + 1)"))
            }
        }
        try dir.write("levels/20/file.txt", text: "the last level")
        try FileManager.default.createSymbolicLink(atPath: dir.file("src"), withDestinationPath: dir.file("levels/0"))
        let started = Date()
        let error = expectError { try build(dir.file("src"), dir.file("out"), followSymlinks: true) }
        #expect(Date().timeIntervalSince(started) < 10)
        #expect(error?.code == .symlink)
        #expect(error?.message.contains("already packed as") == true, "\(String(describing: error))")
        #expect(!FileManager.default.fileExists(atPath: dir.file("out")))
    }

    /// What expand would refuse is refused by build, naming the paths: names reserved for the installer's own
    /// files, and two names of one folder equal but for case or Unicode normalization.
    @Test(arguments: [
        (".assetpackrc", "reserved"), ("d/.assetpack-tmp-x", "reserved"), ("d/Readme.txt", "differ only in case"),
        ("d/caf\u{E9}.txt", "differ only in case"),
    ])
    func whatExpandRefusesIsRefusedByBuild(_ extra: String, _ reason: String) throws {
        let dir = try TemporaryDirectory("build-agrees")
        try dir.write("src/d/README.txt", text: "one")
        try dir.write("src/d/cafe\u{301}.txt", text: "decomposed")
        try FileManager.default.removeItem(atPath: dir.file("src/d/cafe\u{301}.txt"))
        if extra.hasSuffix("caf\u{E9}.txt") {
            // The same name twice, once composed and once decomposed (bytes differ, the name does not).
            try writeBytes(Array("composed".utf8), to: dir.file("src/d/caf\u{E9}.txt"))
            let decomposed = dir.file("src/d/") + "cafe\u{301}.txt"
            try writeBytes(Array("decomposed".utf8), to: decomposed)
        } else {
            try dir.write("src/" + extra, text: "x")
        }
        let error = expectError { try build(dir.file("src"), dir.file("out")) }
        #expect(error?.code == .conflict, "\(String(describing: error))")
        #expect(error?.message.contains(reason) == true, "\(String(describing: error))")
        #expect(!FileManager.default.fileExists(atPath: dir.file("out")))
    }

    @Test func followedLinkLoopIsRefused() throws {
        let dir = try TemporaryDirectory("loop")
        try dir.write("src/a/file.txt", text: "x")
        try FileManager.default.createSymbolicLink(atPath: dir.file("src/a/up"), withDestinationPath: "..")
        let error = expectError { try build(dir.file("src"), dir.file("out"), followSymlinks: true) }
        #expect(error?.code == .symlink)
        #expect(error?.path == dir.file("src/a/up"))
    }

    @Test func danglingLinkIsRefusedWhenFollowing() throws {
        let dir = try TemporaryDirectory("dangling")
        try mkdir(dir.file("src"))
        try FileManager.default.createSymbolicLink(atPath: dir.file("src/gone"), withDestinationPath: "nothing-here")
        let error = expectError { try build(dir.file("src"), dir.file("out"), followSymlinks: true) }
        #expect(error?.code == .symlink && error?.path == dir.file("src/gone"))
    }

    @Test func missingSourceIsNamed() throws {
        let dir = try TemporaryDirectory("missing")
        let error = expectError { try build(dir.file("nope"), dir.file("out")) }
        #expect(error?.code == .notFound)
        #expect(error?.description == "\(dir.file("nope")): source folder does not exist")
    }

    @Test func sourceThatIsAFileIsRefused() throws {
        let dir = try TemporaryDirectory("file")
        try dir.write("file.txt", text: "x")
        #expect(expectError { try build(dir.file("file.txt"), dir.file("out")) }?.code == .invalidArgument)
    }

    @Test func outputInsideSourceIsRefused() throws {
        let dir = try TemporaryDirectory("inside")
        try dir.write("src/a.txt", text: "a")
        let error = expectError { try build(dir.file("src"), dir.file("src/sub/out")) }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains("inside the source") == true)
        #expect(!FileManager.default.fileExists(atPath: dir.file("src/sub")))
        // The same through a relative path with `..`, and the source itself.
        #expect(expectError { try build(dir.file("src"), dir.file("src/../src/x")) }?.code == .invalidArgument)
        #expect(expectError { try build(dir.file("src"), dir.file("src")) }?.code == .invalidArgument)
    }

    @Test func sourceInsideOutputIsRefused() throws {
        let dir = try TemporaryDirectory("contains")
        try dir.write("out/src/a.txt", text: "a")
        let error = expectError { try build(dir.file("out/src"), dir.file("out")) }
        #expect(error?.message.contains("contains the source") == true)
    }

    @Test func outputThatIsNotABundleIsLeftAlone() throws {
        let dir = try TemporaryDirectory("notbundle")
        try dir.write("src/a.txt", text: "a")
        try dir.write("precious/keep.txt", text: "mine")
        let error = expectError { try build(dir.file("src"), dir.file("precious")) }
        #expect(error?.code == .invalidArgument && error?.path == dir.file("precious"))
        #expect(try fileBytes(dir.file("precious/keep.txt")) == Array("mine".utf8))
        try dir.write("afile", text: "x")
        #expect(expectError { try build(dir.file("src"), dir.file("afile")) }?.code == .invalidArgument)
        #expect(expectError { try build(dir.file("src"), dir.path + "/.") }?.code == .invalidArgument)
        #expect(expectError { try build(dir.file("src"), "") }?.code == .invalidArgument)
        // An empty folder is fine.
        try mkdir(dir.file("empty"))
        try build(dir.file("src"), dir.file("empty"))
        #expect(FileManager.default.fileExists(atPath: dir.file("empty/assetpack-meta/manifest.json")))
    }

    @Test(arguments: ["assetpack-meta", ".assetpack"])
    func reservedNameAtTheTopIsRefused(_ name: String) throws {
        let dir = try TemporaryDirectory("reserved")
        try dir.write("src/" + name, text: "mine")
        let error = expectError { try build(dir.file("src"), dir.file("out")) }
        #expect(error?.code == .conflict && error?.path == dir.file("src/" + name))
        // Deeper down the name is an ordinary one.
        try FileManager.default.removeItem(atPath: dir.file("src/" + name))
        try dir.write("src/sub/" + name, text: "fine")
        try build(dir.file("src"), dir.file("out"))
    }

    @Test func unsafeNamesAndSpecialFilesAreRefused() throws {
        let dir = try TemporaryDirectory("unsafe")
        try dir.write("src/back\\slash.txt", text: "x")
        #expect(expectError { try build(dir.file("src"), dir.file("out")) }?.code == .unsafePath)
        try FileManager.default.removeItem(atPath: dir.file("src/back\\slash.txt"))
        #expect(mkfifo(dir.file("src/pipe"), 0o644) == 0)
        let error = expectError { try build(dir.file("src"), dir.file("out")) }
        #expect(error?.code == .unsupported && error?.message.contains("FIFO") == true)
    }

    @Test func unreadableFileIsNamed() throws {
        let dir = try TemporaryDirectory("unreadable")
        try dir.write("src/secret.txt", text: "x")
        try chmod(dir.file("src/secret.txt"), 0)
        if getuid() != 0 {
            let error = expectError { try build(dir.file("src"), dir.file("out")) }
            #expect(error?.path == dir.file("src/secret.txt"))
            return
        }
        // Root reads everything: run the built CLI as `nobody`, who cannot read the file.
        try chmod(dir.path, 0o777)
        let result = try run("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups",
                                                  builtProduct("assetpack"), "build", dir.file("src"), "-o", dir.file("out")])
        #expect(result.status == 74)  // I/O (README, "Exit status")
        #expect(result.stderr.contains(dir.file("src/secret.txt")))
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(!FileManager.default.fileExists(atPath: dir.file("out")))
    }

    @Test func failureMidBuildKeepsTheOldBundleAndLeavesNoTemporaryFolder() throws {
        let dir = try TemporaryDirectory("midway")
        try dir.write("src/a.txt", text: "first")
        try dir.write("src/b.txt", text: "second")
        try build(dir.file("src"), dir.file("out"))
        let before = try bundleBytes(dir.file("out"))
        // The progress report after a.txt deletes b.txt, so opening it fails half-way through the build
        // (one job: files are read one after another, in order).
        let doomed = dir.file("src/b.txt")
        let error = expectError {
            try build(dir.file("src"), dir.file("out"), jobs: 1, progress: { _ in try? FileManager.default.removeItem(atPath: doomed) })
        }
        #expect(error?.path == doomed)
        #expect(try bundleBytes(dir.file("out")) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["out", "src"])
    }

    @Test func fileThatChangesSizeWhileBuildingIsNamed() throws {
        let dir = try TemporaryDirectory("changing")
        var random = SeededRandom(seed: 81)
        try dir.write("src/a.txt", text: "first")
        try dir.write("src/b.bin", random.text(1_200_000))
        let growing = dir.file("src/b.bin")
        // After a.txt is done, b.bin grows: it was scanned at 1,200,000 bytes (one job: read in order).
        let error = expectError {
            try build(dir.file("src"), dir.file("out"), jobs: 1, progress: { _ in
                if let handle = FileHandle(forWritingAtPath: growing) {
                    handle.seekToEndOfFile()
                    handle.write(Data("more".utf8))
                    handle.closeFile()
                }
            })
        }
        #expect(error?.code == .verification)
        #expect(error?.path == growing)
        #expect(!FileManager.default.fileExists(atPath: dir.file("out")))
    }
}
