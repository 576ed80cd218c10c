import Foundation
import Testing
import TestSupport

/// `--dry-run` of `build`, `expand` and `uninstall`, as `rsync -n` and `make -n` users expect: the exact lines
/// saying what would be written, linked and removed, counts that match what the real run then does, and
/// nothing on disk changed (no output, no destination, no staging tree).
@Suite struct DryRunCLITests {
    let tool = builtProduct("assetpack")

    /// A source folder `src` in `scratch`: one small file (gathered into a pack), one copied, one packed in its own zip.
    static func source(in scratch: TemporaryDirectory) throws {
        var random = SeededRandom(seed: 31)
        try scratch.write("src/a.txt", text: "hello\n")
        try scratch.write("src/d/copied.bin", random.bytes(100_000))
        try scratch.write("src/d/big.bin", random.bytes(1_100_000))
    }

    /// The names in `scratch`'s folder, hidden ones included.
    static func names(_ scratch: TemporaryDirectory) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: scratch.path).sorted()
    }

    @Test func buildSaysWhatItWouldWriteAndWritesNothing() throws {
        let scratch = try TemporaryDirectory("cli-dry-build")
        try Self.source(in: scratch)
        let folder = try run(tool, ["build", "src", "-o", "out.bundle", "--dry-run"], cwd: scratch.path)
        #expect(folder.status == 0, "\(folder.stderr)")
        #expect(folder.stdout == """
            dry run: build would write out.bundle from src
              3 files, 1 folder (1.1 MiB before packing): 1 copied, 1 in a zip of its own, 1 gathered into 1 pack archive

            """)
        let archive = try run(tool, ["build", "src", "--archive", "out.zip", "--dry-run", "--json"], cwd: scratch.path)
        #expect(archive.stdout == #"{"bytes":1200006,"command":"build","copied":0,"directories":1,"dryRun":true,"files":3,"#
                + #""form":"archive","gathered":0,"ok":true,"output":"\#(scratch.file("out.zip"))","packed":0,"packs":0,"#
                + #""schema":1,"source":"\#(scratch.file("src"))"}"# + "\n")
        #expect(try Self.names(scratch) == ["src"])
    }

    @Test func expandSaysWhatItWouldWriteLinkAndRemoveAndTheInstallAgrees() throws {
        let scratch = try TemporaryDirectory("cli-dry-expand")
        try Self.source(in: scratch)
        #expect(try run(tool, ["build", "src", "-o", "app.bundle", "-q"], cwd: scratch.path).status == 0)
        let first = try run(tool, ["expand", "app.bundle", "--to", "new/out", "--dry-run"], cwd: scratch.path)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout == """
            dry run: expand would put 3 files (1.1 MiB) into \(scratch.file("new/out"))
              write 3 files (1.1 MiB), link 0 unchanged, remove 0 files (0 B)

            """)
        #expect(try Self.names(scratch) == ["app.bundle", "src"])  // no destination, parent or staging tree

        #expect(try run(tool, ["expand", "app.bundle", "--to", "out", "-q"], cwd: scratch.path).status == 0)
        let upToDate = try run(tool, ["expand", "app.bundle", "--to", "out", "--dry-run"], cwd: scratch.path)
        #expect(upToDate.stdout == "\(scratch.file("out")) is up to date; nothing would change\n")

        try scratch.write("src/a.txt", text: "hello again\n")
        try FileManager.default.removeItem(atPath: scratch.file("src/d/copied.bin"))
        try scratch.write("out/mine.txt", text: "the app's\n")
        #expect(try run(tool, ["build", "src", "-o", "app.bundle", "-q"], cwd: scratch.path).status == 0)
        let upgrade = try run(tool, ["expand", "app.bundle", "--to", "out", "--dry-run", "--delete-unknown"], cwd: scratch.path)
        #expect(upgrade.stdout == """
            dry run: expand would put 2 files (1.0 MiB) into \(scratch.file("out"))
              write 1 file (12 B), link 1 unchanged, remove 1 file (97.7 KiB)
              remove 1 entry that assetpack did not write:
                mine.txt

            """)
        #expect(FileManager.default.fileExists(atPath: scratch.file("out/d/copied.bin")))
        let done = try run(tool, ["expand", "app.bundle", "--to", "out", "--delete-unknown"], cwd: scratch.path)
        #expect(done.stdout.contains("(1 unchanged, 1 written)"), "\(done.stdout)")
    }

    @Test func expandDryRunRefusesWhatTheExpandWouldRefuse() throws {
        let scratch = try TemporaryDirectory("cli-dry-refused")
        try scratch.write("app.bundle/a.txt", text: "a\n")
        let verify = try run(tool, ["expand", "app.bundle", "--to", "out", "--verify", "--dry-run"], cwd: scratch.path)
        #expect(verify.status == 64)
        #expect(verify.stderr.hasPrefix("assetpack: error: --dry-run is for an expand: --verify already changes nothing"))
        try scratch.write("src/a.txt", text: "a\n")
        try scratch.write("theirs/notes.txt", text: "not assetpack's\n")
        let foreign = try run(tool, ["expand", "src", "--to", "theirs", "--dry-run"], cwd: scratch.path)
        #expect(foreign.status == 64)
        #expect(foreign.stderr == "assetpack: error: \(scratch.file("theirs")): the destination is a folder that assetpack did "
                + "not create and it is not empty; refusing to replace it\n")
        #expect(try Self.names(scratch) == ["app.bundle", "src", "theirs"])
    }

    @Test func uninstallSaysWhatItWouldRemoveAndRemovesNothing() throws {
        let scratch = try TemporaryDirectory("cli-dry-uninstall")
        try Self.source(in: scratch)
        #expect(try run(tool, ["expand", "src", "--to", "out", "-q"], cwd: scratch.path).status == 0)
        try scratch.write("out/mine.txt", text: "x\n")
        let result = try run(tool, ["uninstall", "out", "--dry-run"], cwd: scratch.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == """
            dry run: would remove \(scratch.file("out")): 3 files (1.1 MiB) with 1 entry that assetpack did not install:
              mine.txt

            """)
        let json = try run(tool, ["uninstall", "out", "--dry-run", "--json"], cwd: scratch.path)
        #expect(json.stdout.contains(#""dryRun":true"#) && json.stdout.contains(#""unknown":["mine.txt"]"#))
        #expect(FileManager.default.fileExists(atPath: scratch.file("out/.assetpack/identity")))
        #expect(FileManager.default.fileExists(atPath: scratch.file("out/mine.txt")))
    }

    /// From a server: the identity and the manifest are fetched (the manifest checked against the key), nothing is
    /// made beside the destination, and the bytes to download are those of the files that changed.
    @Test func expandFromAServerSaysWhatItWouldDownloadAndWritesNothing() async throws {
        try ExternalTool.nginx.require()
        let server = try await NginxServer()
        let scratch = try TemporaryDirectory("cli-dry-remote")
        try Self.source(in: scratch)
        #expect(try run(tool, ["keygen", "--out", "k", "-q"], cwd: scratch.path).status == 0)
        #expect(try run(tool, ["keygen", "--out", "other", "-q"], cwd: scratch.path).status == 0)
        #expect(try run(tool, ["build", "src", "-o", server.root + "/app.bundle", "--sign", "k", "-q"], cwd: scratch.path).status == 0)
        let url = server.url("app.bundle").absoluteString
        let remote = ["--allow-http", "--public-key", "k.pub"]
        let first = try run(tool, ["expand", url, "--to", "out", "--dry-run"] + remote, cwd: scratch.path)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.hasPrefix("dry run: expand would put 3 files (1.1 MiB) into \(scratch.file("out"))\n"
                                       + "  write 3 files (1.1 MiB), link 0 unchanged, remove 0 files (0 B)\n  would fetch "))
        #expect(first.stdout.contains(" requests (plus ") && first.stdout.hasSuffix(" bytes of manifest)\n"), "\(first.stdout)")
        #expect(try Self.names(scratch) == ["k", "k.pub", "other", "other.pub", "src"])
        let untrusted = try run(tool, ["expand", url, "--to", "out", "--dry-run", "--allow-http", "--public-key", "other.pub"],
                                cwd: scratch.path)
        #expect(untrusted.status == 79 && untrusted.stdout.isEmpty)

        #expect(try run(tool, ["expand", url, "--to", "out", "-q"] + remote, cwd: scratch.path).status == 0)
        let upToDate = try run(tool, ["expand", url, "--to", "out", "--dry-run"] + remote, cwd: scratch.path)
        #expect(upToDate.stdout == "\(scratch.file("out")) is up to date; nothing would change\n")
        try scratch.write("src/a.txt", text: "hello again\n")
        #expect(try run(tool, ["build", "src", "-o", server.root + "/app.bundle", "--sign", "k", "-q"], cwd: scratch.path).status == 0)
        let upgrade = try run(tool, ["expand", url, "--to", "out", "--dry-run", "--json"] + remote, cwd: scratch.path)
        let fields = try #require(try JSONSerialization.jsonObject(with: Data(upgrade.stdout.utf8)) as? [String: Any])
        #expect(fields["filesWritten"] as? Int == 1 && fields["filesLinked"] as? Int == 2 && fields["dryRun"] as? Bool == true)
        let fetched = try #require(fields["bytesToFetch"] as? Int)
        #expect(fetched > 0 && fetched < 1_000, "only the changed small file's bytes: \(fetched)")
        #expect(fields["requestsToFetch"] as? Int == 1 && (fields["manifestBytes"] as? Int ?? 0) > 0)
        // More than --max-download is refused (exit status 77), the installed tree as it was; --limit-rate installs.
        let refused = try run(tool, ["expand", url, "--to", "out", "--max-download", "\(fetched - 1)"] + remote, cwd: scratch.path)
        #expect(refused.status == 77 && refused.stderr.contains("declined"), "\(refused.stderr)")
        #expect(try String(contentsOfFile: scratch.file("out/a.txt"), encoding: .utf8) != "hello again\n")
        #expect(try Self.names(scratch) == ["k", "k.pub", "other", "other.pub", "out", "src"])
        let stopped = try run(tool, ["expand", url, "--to", "out", "--limit-rate", "0"] + remote, cwd: scratch.path)
        #expect(stopped.status == 64 && stopped.stderr.contains("--limit-rate must be more than 0"), "\(stopped.stderr)")
        let capped = try run(tool, ["expand", url, "--to", "out", "--max-download", "\(fetched)", "--limit-rate", "1M", "-q"] + remote,
                             cwd: scratch.path)
        #expect(capped.status == 0, "\(capped.stderr)")
        #expect(try String(contentsOfFile: scratch.file("out/a.txt"), encoding: .utf8) == "hello again\n")
    }
}
