import Foundation
import Testing
import TestSupport

/// The state around an install, as an earlier run, another process or a careless user leaves it, met from the
/// command line: nothing is written outside the destination and its staging, no leftover is trusted unchecked,
/// nothing the user put there is lost, nothing hangs, `build` writes only what `expand` takes, and every refusal
/// is one line naming the file and the reason. Each case keeps a decoy folder beside the destination (a file with
/// the bytes of an asset, and a secret) that must not change in any way.
@Suite struct HostileStateCLITests {
    static let tool = builtProduct("assetpack")

    /// A scratch folder with `src/` (`a.txt`, `d/big.bin`, `d/c.txt`), `b.bundle` built from it, `src2/` and
    /// `b2.bundle` (the next version: `a.txt` changed, `new.txt` added), `decoy/` and `out` (the destination, not
    /// made yet).
    final class Scene: Sendable {
        let dir: TemporaryDirectory
        static let asset = Array("hello\n".utf8)

        init() throws {
            dir = try TemporaryDirectory("cli-hostile-state")
            var random = SeededRandom(seed: 30)
            let big = random.bytes(5_000)
            try ExpandCLITests.write(["a.txt": Self.asset, "d/big.bin": big, "d/c.txt": Array("c\n".utf8)], to: dir.file("src"))
            try ExpandCLITests.write(["a.txt": Array("hello, version 2\n".utf8), "d/big.bin": big, "d/c.txt": Array("c\n".utf8),
                                      "new.txt": Array("new\n".utf8)], to: dir.file("src2"))
            try ExpandCLITests.write(["victim.txt": Self.asset, "secret.txt": Array("the user's secret\n".utf8)], to: dir.file("decoy"))
            try mkdir(dir.file("elsewhere"))
            for (source, bundle) in [("src", "b.bundle"), ("src2", "b2.bundle")] {
                let built = try self.run(["build", source, "-o", bundle, "-q"])
                #expect(built.status == 0, "\(built.stderr)")
            }
        }

        func file(_ path: String) -> String { dir.file(path) }

        func run(_ arguments: [String], in folder: String = "", environment: [String: String] = [:]) throws -> CommandResult {
            try TestSupport.run(tool, arguments, cwd: folder.isEmpty ? dir.path : file(folder), environment: environment)
        }

        /// `assetpack expand SOURCE --to out`, which must succeed.
        func install(_ source: String) throws {
            let result = try run(["expand", source, "--to", "out", "-q"])
            #expect(result.status == 0, "\(result.stderr)")
        }

        /// Every file below `decoy/` and `elsewhere/` with its bytes, mode and modification time (its link count
        /// may drop: a name planted in a staging tree is removed).
        func decoyState() throws -> [String: String] {
            var state: [String: String] = [:]
            for root in ["decoy", "elsewhere"] {
                guard let names = FileManager.default.enumerator(atPath: file(root))?.allObjects as? [String] else { continue }
                for name in names {
                    var status = stat()
                    guard lstat(file(root + "/" + name), &status) == 0 else { continue }
                    let bytes = (status.st_mode & S_IFMT) == S_IFREG ? try fileBytes(file(root + "/" + name)) : []
                    state[root + "/" + name] = "\(bytes) \(String(status.st_mode, radix: 8)) \(status.st_mtim.tv_sec).\(status.st_mtim.tv_nsec)"
                }
            }
            return state
        }

        /// The regular files of the tree at `path` (its record left out), each with its bytes and mode.
        func tree(_ path: String) -> [String: String] {
            var files: [String: String] = [:]
            for (name, bytes) in ExpandCLITests.read(file(path)) ?? [:] {
                var status = stat()
                _ = lstat(file(path + "/" + name), &status)
                files[name] = "\(bytes) \(String(status.st_mode & 0o7777, radix: 8)) \(status.st_nlink)"
            }
            return files
        }
    }

    /// One case: what is left or planted (`prepare`), the command, its exit status and a part of its one stderr
    /// line (or of its output, for a success), and what must hold afterwards (`check`).
    struct Case: Sendable, CustomTestStringConvertible {
        let label: String
        var prepare: @Sendable (Scene) throws -> Void = { _ in }
        let arguments: [String]
        /// The folder of the scene the command runs in; the scene's own when empty.
        var folder = ""
        /// Variables set for the command.
        var environment: [String: String] = [:]
        let status: Int32
        let says: String
        var check: @Sendable (Scene, CommandResult) throws -> Void = { _, _ in }
        var testDescription: String { label }
    }

    static let cases: [Case] = [
        // Never write outside the destination and its staging.
        Case(label: "a staging tree with a hard link to a file elsewhere, a long file and mode 6777", prepare: { scene in
            try mkdir(scene.file(".out.assetpack-staging/d"))
            #expect(link(scene.file("decoy/victim.txt"), scene.file(".out.assetpack-staging/a.txt")) == 0)
            try writeBytes(Array(repeating: 1, count: 9_000), to: scene.file(".out.assetpack-staging/d/big.bin"))
            #expect(chmod(scene.file(".out.assetpack-staging/d/big.bin"), 0o6777) == 0)
        }, arguments: ["expand", "b.bundle", "--to", "out"], status: 0, says: "expanded 3 files", check: { scene, _ in
            #expect(scene.tree("out") == scene.tree("src"), "the bundle's bytes, modes and one name each")
        }),
        Case(label: "a relative destination when the current folder is gone", arguments: [], status: 64,
             says: "rel: is a relative path, and the current folder no longer exists; give an absolute path"),
        Case(label: "the current folder, inside an installed destination", prepare: { scene in try scene.install("b.bundle") },
             arguments: ["expand", "../b.bundle", "--to", "."], folder: "out", status: 64,
             says: ".: cannot expand into this folder; name a folder to create or replace", check: { scene, _ in
            #expect(scene.tree("out") == scene.tree("src"))
        }),
        Case(label: "a destination name too long for its staging sibling",
             arguments: ["expand", "b.bundle", "--to", String(repeating: "n", count: 240)], status: 64,
             says: "the folder's name is 240 bytes long; assetpack needs room for a hidden sibling with a longer name, so it may have at most 235 bytes"),
        // Never trust a leftover.
        Case(label: "a complete staging tree with a file changed at its size", prepare: { scene in
            try scene.install("b.bundle")
            #expect(rename(scene.file("out"), scene.file(".out.assetpack-staging")) == 0)
            try writeBytes(Array("HELLO\n".utf8), to: scene.file(".out.assetpack-staging/a.txt"))
        }, arguments: ["expand", "b.bundle", "--to", "out"], status: 0, says: "expanded 3 files", check: { scene, _ in
            #expect(scene.tree("out") == scene.tree("src"))
        }),
        Case(label: "an installed file changed at its size and another's mode, then an upgrade", prepare: { scene in
            try scene.install("b.bundle")
            try writeBytes(Array(repeating: 2, count: 5_000), to: scene.file("out/d/big.bin"))
            #expect(chmod(scene.file("out/d/c.txt"), 0o400) == 0)
        }, arguments: ["expand", "b2.bundle", "--to", "out"], status: 0, says: "expanded 4 files", check: { scene, _ in
            #expect(scene.tree("out") == scene.tree("src2"), "neither the changed file nor the mode is carried over")
        }),
        Case(label: "a record reached through a symbolic link", prepare: { scene in
            try scene.install("b.bundle")
            #expect(rename(scene.file("out/.assetpack"), scene.file("elsewhere/record")) == 0)
            for name in ["a.txt", "d/big.bin", "d/c.txt"] { try FileManager.default.removeItem(atPath: scene.file("out/" + name)) }
            #expect(symlink("../elsewhere/record", scene.file("out/.assetpack")) == 0)
        }, arguments: ["expand", "b.bundle", "--to", "out"], status: 64,
             says: "the destination is a folder that assetpack did not create and it is not empty; refusing to replace it"),
        // Never lose the user's data.
        Case(label: "a file the user put into the destination, then an upgrade", prepare: { scene in
            try scene.install("b.bundle")
            try writeBytes(Array("mine\n".utf8), to: scene.file("out/notes.txt"))
        }, arguments: ["expand", "b2.bundle", "--to", "out"], status: 0, says: "kept 1 entry that assetpack did not write: notes.txt",
             check: { scene, _ in
            let bytes = try fileBytes(scene.file("out/notes.txt"))
            #expect(bytes == Array("mine\n".utf8))
        }),
        Case(label: "a file the user put into the destination, then an upgrade asked to delete it", prepare: { scene in
            try scene.install("b.bundle")
            try writeBytes(Array("mine\n".utf8), to: scene.file("out/notes.txt"))
        }, arguments: ["expand", "b2.bundle", "--to", "out", "--delete-unknown"], status: 0, says: "notes.txt", check: { scene, _ in
            #expect(scene.tree("out") == scene.tree("src2"))
        }),
        Case(label: "a user's folder with a stray identity file", prepare: { scene in
            try ExpandCLITests.write(["data.txt": Array("precious\n".utf8), ".assetpack/identity": Array("x\n".utf8)], to: scene.file("out"))
        }, arguments: ["expand", "b.bundle", "--to", "out"], status: 64,
             says: "the destination holds an install identity but no install record (.assetpack/installed.json.gz), so nothing proves it is assetpack's",
             check: { scene, _ in
            let bytes = try fileBytes(scene.file("out/data.txt"))
            #expect(bytes == Array("precious\n".utf8))
        }),
        Case(label: "a folder source edited in place at the same size", prepare: { scene in
            try scene.install("src")
            usleep(20_000)
            try writeBytes(Array("HELLO\n".utf8), to: scene.file("src/a.txt"))
        }, arguments: ["expand", "src", "--to", "out"], status: 0, says: "expanded 3 files", check: { scene, _ in
            let bytes = try fileBytes(scene.file("out/a.txt"))
            #expect(bytes == Array("HELLO\n".utf8), "never \"up to date\" of a stale tree")
        }),
        // Never hang.
        Case(label: "a FIFO as the archive", prepare: { scene in #expect(mkfifo(scene.file("f.zip"), 0o644) == 0) },
             arguments: ["expand", "f.zip", "--to", "out"], status: 64, says: "f.zip: is a FIFO"),
        Case(label: "a FIFO as the install record's identity", prepare: { scene in
            try scene.install("b.bundle")
            try FileManager.default.removeItem(atPath: scene.file("out/.assetpack/identity"))
            #expect(mkfifo(scene.file("out/.assetpack/identity"), 0o644) == 0)
        }, arguments: ["expand", "b.bundle", "--to", "out"], status: 0, says: "expanded 3 files", check: { scene, _ in
            #expect(scene.tree("out") == scene.tree("src"))
        }),
        Case(label: "a name that is not UTF-8 in the installed tree, then an upgrade", prepare: { scene in
            try scene.install("b.bundle")
            let made = try run("sh", ["-c", "touch \"out/bad$(printf '\\377')\""], cwd: scene.dir.path)
            #expect(made.status == 0 && folderNames(scene.file("out")).count == 4, "\(made.stderr)")
        }, arguments: ["expand", "b2.bundle", "--to", "out"], status: 0, says: "expanded 4 files", check: { scene, _ in
            #expect(scene.tree("out").filter { !$0.key.hasPrefix("bad") } == scene.tree("src2"))
            #expect(folderNames(scene.file("out")).count == 5, "the user's file is kept")
        }),
        Case(label: "a deflated archive inside an APK, with $TMPDIR missing", prepare: { scene in
            let inner = RawZip([RawZip.file("levels/one.txt", Array("one\n".utf8))]).bytes
            try RawZip([try RawZip.deflated("assets/levels.zip", inner), RawZip.file("assets/x.txt", [1])]).write(to: scene.file("app.apk"))
        }, arguments: ["expand", "app.apk", "--root", "assets", "--to", "out"], environment: ["TMPDIR": "/nonexistent"], status: 0,
             says: "expanded 2 files", check: { scene, _ in
            let bytes = try fileBytes(scene.file("out/levels/one.txt"))
            #expect(bytes == Array("one\n".utf8), "copied into the staging tree, not the missing temporary folder")
        }),
        Case(label: "build following links that lead in a circle", prepare: { scene in
            try ExpandCLITests.write(["a/f.txt": [1]], to: scene.file("loop"))
            try mkdir(scene.file("loop/b"))
            #expect(symlink("../b", scene.file("loop/a/to-b")) == 0)
            #expect(symlink("../a", scene.file("loop/b/to-a")) == 0)
        }, arguments: ["build", "loop", "--follow-symlinks", "-o", "loop.bundle"], status: 77,
             says: "symbolic link leads to a folder already packed as"),
        // Build and expand agree.
        Case(label: "build of a reserved name", prepare: { scene in
            try ExpandCLITests.write([".assetpackrc": [1], "ok.txt": [2]], to: scene.file("reserved"))
        }, arguments: ["build", "reserved", "-o", "reserved.bundle"], status: 77,
             says: "reserved/.assetpackrc: \".assetpackrc\": the name is reserved for assetpack's own files"),
        Case(label: "build of names equal but for case", prepare: { scene in
            try ExpandCLITests.write(["Read.me": [1], "read.me": [2]], to: scene.file("cased"))
        }, arguments: ["build", "cased", "-o", "cased.bundle"], status: 77,
             says: "\"Read.me\" and \"read.me\" differ only in case or Unicode normalization"),
        // Clear errors.
        Case(label: "a bundle file that is a link to a folder", prepare: { scene in
            let pack = try #require(folderNames(scene.file("b.bundle/assetpack-meta/packs")).first)
            try FileManager.default.removeItem(atPath: scene.file("b.bundle/assetpack-meta/packs/" + pack))
            #expect(symlink("../../../elsewhere", scene.file("b.bundle/assetpack-meta/packs/" + pack)) == 0)
        }, arguments: ["expand", "b.bundle", "--to", "out"], status: 77,
             says: "is a symbolic link; links inside an asset folder are never followed"),
        Case(label: "a bundle file that is a folder", prepare: { scene in
            let pack = try #require(folderNames(scene.file("b.bundle/assetpack-meta/packs")).first)
            try FileManager.default.removeItem(atPath: scene.file("b.bundle/assetpack-meta/packs/" + pack))
            try mkdir(scene.file("b.bundle/assetpack-meta/packs/" + pack))
        }, arguments: ["expand", "b.bundle", "--to", "out"], status: 66, says: "is a directory, not a file"),
        Case(label: "a manifest with a negative size", prepare: { scene in
            let path = scene.file("b.bundle/assetpack-meta/manifest.json")
            let text = String(decoding: try fileBytes(path), as: UTF8.self)
            try writeBytes(Array(text.replacingOccurrences(of: "\"size\":6,", with: "\"size\":-6,").utf8), to: path)
        }, arguments: ["expand", "b.bundle", "--to", "out"], status: 65, says: "b.bundle: assetpack-meta/manifest.json: "),
    ]

    @Test(arguments: cases)
    func aHostileStateEndsRightAndTheDecoyIsUntouched(_ hostile: Case) throws {
        let scene = try Scene()
        try hostile.prepare(scene)
        let decoy = try scene.decoyState()
        #expect(decoy.count >= 2)
        let result: CommandResult
        if hostile.arguments.isEmpty {  // run from a folder that is removed first
            result = try run("sh", ["-c", "mkdir gone && cd gone && rmdir ../gone && exec \"$0\" expand ../b.bundle --to rel", Self.tool],
                             cwd: scene.dir.path)
        } else {
            result = try scene.run(hostile.arguments, in: hostile.folder, environment: hostile.environment)
        }
        #expect(result.status == hostile.status, "\(result.stdout)\(result.stderr)")
        if hostile.status == 0 {
            #expect((result.stdout + result.stderr).contains(hostile.says), "\(result.stdout)\(result.stderr)")
        } else {
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 1 && lines.first?.hasPrefix("assetpack: error: ") == true, "\(result.stderr)")
            #expect(result.stderr.contains(hostile.says), "\(result.stderr)")
        }
        try hostile.check(scene, result)
        #expect(try scene.decoyState() == decoy, "the decoy folder changed")
        #expect(!folderNames(scene.dir.path).contains { $0.hasPrefix(".out.") && !$0.hasSuffix("-staging") }, "no leftover beside out")
    }
}
