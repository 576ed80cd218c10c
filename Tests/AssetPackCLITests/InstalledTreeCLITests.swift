import Foundation
import Testing
import TestSupport

/// End-to-end tests of `assetpack status`, `expand --verify` and `uninstall`: the exact stdout, stderr and
/// exit status of the built binary, and the files on disk.
@Suite struct InstalledTreeCLITests {
    let tool = builtProduct("assetpack")

    /// 8,025 bytes in six files; five of them get damaged.
    static let tree: ExpandCLITests.Files = [
        "a.txt": Array("alpha\n".utf8), "dir/b.bin": Array(repeating: 2, count: 3_000), "dir/c.bin": Array(repeating: 3, count: 5_000),
        "d.txt": Array("delta\n".utf8), "e.txt": Array("echo\n".utf8), "f.txt": Array("foxtrot\n".utf8),
    ]

    /// 12:00 on 1 May 2024, UTC: the install time the tests set, so that `status` prints a known time.
    static let installTime = Date(timeIntervalSince1970: 1_714_564_800)

    /// A scratch folder with the tree in `src`.
    private func scratchWithSource(_ label: String) throws -> TemporaryDirectory {
        let scratch = try TemporaryDirectory(label)
        try ExpandCLITests.write(Self.tree, to: scratch.file("src"))
        return scratch
    }

    private func assetpack(_ arguments: [String], environment: [String: String]? = nil) throws -> CommandResult {
        try run(tool, arguments, environment: environment)
    }

    /// Runs and expects exit status `status` (0 unless given), `stdout` exactly and nothing on stderr.
    private func expectOutput(_ arguments: [String], _ stdout: String, status: Int32 = 0,
                              sourceLocation: SourceLocation = #_sourceLocation) throws {
        let result = try assetpack(arguments)
        #expect(result.status == status, "exit status \(result.status): \(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stdout == stdout, sourceLocation: sourceLocation)
        #expect(result.stderr == "", sourceLocation: sourceLocation)
    }

    /// The one line of a file, without its newline.
    private func line(_ path: String) throws -> String {
        String(decoding: try fileBytes(path), as: UTF8.self).trimmingCharacters(in: .newlines)
    }

    /// Expands `src` into `out` and sets the record's time to ``installTime``; returns the identity.
    private func install(_ scratch: TemporaryDirectory) throws -> String {
        let expanded = try assetpack(["expand", scratch.file("src"), "--to", scratch.file("out"), "-q"])
        #expect(expanded.status == 0, "\(expanded.stderr)")
        try TreeDamage.setModified(scratch.file("out/.assetpack/identity"), Self.installTime)
        return try line(scratch.file("out/.assetpack/identity"))
    }

    @Test func statusSaysNotInstalledPartialInstalledAndOutdated() throws {
        let scratch = try scratchWithSource("cli-status")
        let out = scratch.file("out")
        try expectOutput(["status", out], "\(out): not installed\n", status: 2)
        try expectOutput(["status", out, "--json"], #"{"command":"status","destination":"\#(out)","ok":false,"problems":[],"schema":1,"state":"not-installed","unknown":[]}"# + "\n", status: 2)
        try expectOutput(["status", scratch.file("src")], """
            \(scratch.file("src")): not installed
              unknown: 5 entries that assetpack did not install
                a.txt
                d.txt
                dir/
                e.txt
                f.txt

            """, status: 3)

        // Killed after two files (one job: in path order, a.txt and d.txt).
        let killed = try assetpack(["expand", scratch.file("src"), "--to", out, "--jobs", "1"],
                                   environment: ["ASSETPACK_TEST_KILL_AFTER_FILES": "2"])
        #expect(killed.status != 0)
        let staging = scratch.file(".out.assetpack-staging")
        let staged = try line(staging + "/.assetpack/staging")
        try expectOutput(["status", out], """
            \(out): partial
              staging: 2 files (12 B) written in \(staging)
                of \(staged)
                the next expand resumes it, checking each file again

            """, status: 2)
        try expectOutput(["status", out, "--json"], #"{"command":"status","destination":"\#(out)","ok":false,"problems":[],"schema":1,"#
                         + #""staging":{"bytes":12,"complete":false,"files":2,"identity":"\#(staged)","path":"\#(staging)"},"#
                         + #""state":"partial","unknown":[]}"# + "\n", status: 2)

        let identity = try install(scratch)
        #expect(identity == staged)
        try expectOutput(["status", out], """
            \(out): installed
              identity: \(identity)
              files: 6 (7.8 KiB)
              installed: 2024-05-01T12:00:00Z

            """)
        try expectOutput(["status", out, "--source", scratch.file("src")], """
            \(out): installed
              identity: \(identity)
              files: 6 (7.8 KiB)
              installed: 2024-05-01T12:00:00Z

            """)
        try expectOutput(["status", out, "--json"], #"{"bytes":8025,"command":"status","destination":"\#(out)","files":6,"identity":"\#(identity)","#
                         + #""installedAt":"2024-05-01T12:00:00Z","ok":true,"problems":[],"schema":1,"state":"installed","unknown":[]}"# + "\n")

        try writeBytes(Array("alpha, edited\n".utf8), to: scratch.file("src/a.txt"))
        let compared = try assetpack(["status", out, "--source", scratch.file("src"), "--json"])
        #expect(compared.status == 1)
        let summary = try JSONSerialization.jsonObject(with: Data(compared.stdout.utf8)) as? [String: Any]
        let source = try #require(summary?["sourceIdentity"] as? String)
        #expect(source != identity && source.hasPrefix("assetpack-1 tree "))
        try expectOutput(["status", out, "--source", scratch.file("src")], """
            \(out): outdated
              identity: \(identity)
              source: \(source)
              files: 6 (7.8 KiB)
              installed: 2024-05-01T12:00:00Z

            """, status: 1)
        try expectOutput(["status", out, "--source", scratch.file("src"), "--json"],
                         #"{"bytes":8025,"command":"status","destination":"\#(out)","files":6,"identity":"\#(identity)","#
                         + #""installedAt":"2024-05-01T12:00:00Z","ok":false,"problems":[],"schema":1,"sourceIdentity":"\#(source)","#
                         + #""state":"outdated","unknown":[]}"# + "\n", status: 1)
    }

    @Test func statusListsChangesAndUnknownEntriesWithoutTouchingThem() throws {
        let scratch = try scratchWithSource("cli-status-changes")
        let out = scratch.file("out")
        let identity = try install(scratch)
        try TreeDamage.delete(out + "/a.txt")
        try chmod(out + "/d.txt", 0o600)
        try scratch.write("out/notes.txt", text: "the app's")
        try mkdir(out + "/cache")
        try expectOutput(["status", out], """
            \(out): installed
              identity: \(identity)
              files: 6 (7.8 KiB)
              installed: 2024-05-01T12:00:00Z
              changed: 2 entries differ from the record (contents not read; expand --repair repairs them)
                a.txt: missing
                d.txt: mode 0600, recorded 0644
              unknown: 2 entries the record does not know (kept by an upgrade or a repair; --delete-unknown removes them)
                cache/
                notes.txt

            """, status: 1)
        try expectOutput(["status", out, "--json"], #"{"bytes":8025,"command":"status","destination":"\#(out)","files":6,"identity":"\#(identity)","#
                         + #""installedAt":"2024-05-01T12:00:00Z","ok":false,"problems":[{"detail":"missing","kind":"missing","path":"a.txt"},"#
                         + #"{"detail":"mode 0600, recorded 0644","kind":"mode","path":"d.txt"}],"schema":1,"state":"installed","#
                         + #""unknown":["cache/","notes.txt"]}"# + "\n", status: 1)
        #expect(folderNames(out).contains("notes.txt"))
        let file = try assetpack(["status", scratch.file("src/a.txt")])
        #expect(file.status == 64 && file.stdout == "")
        #expect(file.stderr == "assetpack: error: \(scratch.file("src/a.txt")): the destination exists and is a file, not a folder\n")
    }

    @Test func expandVerifyRepairsTheDamagedFilesByteForByteAndSaysWhich() throws {
        let scratch = try scratchWithSource("cli-verify")
        let out = scratch.file("out")
        _ = try install(scratch)
        try TreeDamage.delete(out + "/a.txt")
        try TreeDamage.truncate(out + "/dir/b.bin", to: 1_000)
        try TreeDamage.flipByte(out + "/dir/c.bin", at: 4_000)
        try chmod(out + "/d.txt", 0o755)
        try TreeDamage.replaceByFolder(out + "/e.txt")
        try scratch.write("out/notes.txt", text: "the app's")
        try expectOutput(["expand", scratch.file("src"), "--to", out], "\(out) is up to date\n")

        let before = ExpandCLITests.read(out)
        try expectOutput(["expand", scratch.file("src"), "--to", out, "--verify"], """
            \(out): 5 entries differ from the record (expand --repair writes them again):
              a.txt: missing
              d.txt: mode 0755, recorded 0644
              dir/b.bin: size 1000, recorded 3000
              dir/c.bin: contents differ (CRC-32 \(crc(flipping: 4_000, of: "dir/c.bin")), recorded \(crc(of: "dir/c.bin")))
              e.txt: a folder, recorded a file
            1 entry in \(out) that the record does not know (kept by an upgrade or a repair; --delete-unknown removes them):
              notes.txt

            """, status: 1)
        let damaged = try assetpack(["expand", scratch.file("src"), "--to", out, "--verify", "--json"])
        #expect(damaged.status == 1 && damaged.stdout.contains(#""ok":false,"outcome":"damaged""#))
        let quiet = try assetpack(["expand", scratch.file("src"), "--to", out, "--verify", "-q"])
        #expect(quiet.status == 1 && quiet.stdout == "" && quiet.stderr == "")
        #expect(ExpandCLITests.read(out) == before && TreeDamage.permissions(out + "/d.txt") == 0o755)

        try expectOutput(["expand", scratch.file("src"), "--to", out, "--repair"], """
            repaired 5 entries in \(out):
              a.txt: missing
              d.txt: mode 0755, recorded 0644
              dir/b.bin: size 1000, recorded 3000
              dir/c.bin: contents differ (CRC-32 \(crc(flipping: 4_000, of: "dir/c.bin")), recorded \(crc(of: "dir/c.bin")))
              e.txt: a folder, recorded a file
            kept 1 entry in \(out) that the record does not know:
              notes.txt

            """)
        var expected = Self.tree
        expected["notes.txt"] = Array("the app's".utf8)
        #expect(ExpandCLITests.read(out) == expected)
        #expect(TreeDamage.permissions(out + "/d.txt") == 0o644)
        #expect(hiddenNames(scratch.path) == [])
        try expectOutput(["expand", scratch.file("src"), "--to", out, "--verify"], """
            \(out) is up to date: 6 files (7.8 KiB) verified
            1 entry in \(out) that the record does not know (kept by an upgrade or a repair; --delete-unknown removes them):
              notes.txt

            """)
        let identity = try line(out + "/.assetpack/identity")
        let checked = try assetpack(["expand", scratch.file("src"), "--to", out, "--verify", "--json"])
        let seconds = try #require(try JSONSerialization.jsonObject(with: Data(checked.stdout.utf8)) as? [String: Any])["seconds"]
        #expect((seconds as? Double ?? 0) > 0)
        #expect(checked.status == 0 && checked.stdout.replacingOccurrences(of: "\(seconds!)", with: "S")
                == #"{"bytes":8025,"command":"expand","destination":"\#(out)","files":6,"identity":"\#(identity)","ok":true,"#
                + #""outcome":"up-to-date","problems":[],"schema":1,"seconds":S,"source":"\#(scratch.file("src"))","#
                + #""unknown":["notes.txt"],"upToDate":true}"# + "\n")
        try TreeDamage.delete(out + "/f.txt")
        let repaired = try assetpack(["expand", scratch.file("src"), "--to", out, "--verify", "--repair", "--json"])
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(repaired.stdout.utf8)) as? [String: Any])
        #expect(summary["outcome"] as? String == "repaired")
        #expect(summary["repaired"] as? [String] == ["f.txt"])
        #expect(summary["filesWritten"] as? Int == 1 && summary["bytesWritten"] as? Int == 8)
        #expect(summary["unknownKept"] as? [String] == ["notes.txt"] && summary["unknownDeleted"] as? [String] == [])
        var kept = Self.tree
        kept["notes.txt"] = Array("the app's".utf8)
        #expect(ExpandCLITests.read(out) == kept)
        // --delete-unknown removes it, and says so.
        try TreeDamage.delete(out + "/f.txt")
        try expectOutput(["expand", scratch.file("src"), "--to", out, "--repair", "--delete-unknown"], """
            repaired 1 entry in \(out):
              f.txt: missing
            removed 1 entry in \(out) that the record did not know:
              notes.txt

            """)
        #expect(ExpandCLITests.read(out) == Self.tree)
    }

    @Test func verifyChangesNothingSoWhatWritesIsAUsageError() throws {
        let scratch = try scratchWithSource("cli-verify-usage")
        for option in ["--delete-unknown", "--no-sync", "--verbose"] {
            let refused = try assetpack(["expand", scratch.file("src"), "--to", scratch.file("out"), "--verify", option])
            #expect(refused.status == 64 && refused.stdout == "")
            #expect(refused.stderr == "assetpack: error: --verify changes nothing; \(option) is for an expand or a --repair. "
                    + "(see 'assetpack expand --help')\n")
        }
        let typo = try assetpack(["expand", scratch.file("src"), "--to", scratch.file("out"), "--repiar"])
        #expect(typo.status == 64)
        #expect(typo.stderr == "assetpack: error: Unknown option '--repiar'. Did you mean '--repair'? (see 'assetpack expand --help')\n")
        let url = try assetpack(["expand", "https://example.com/app.bundle", "--to", scratch.file("out"), "--repair"])
        #expect(url.status == 64)
        #expect(url.stderr == "assetpack: error: --root, --verify and --repair are for a local bundle, not a URL. "
                + "(see 'assetpack expand --help')\n")
        try expectOutput(["expand", scratch.file("src"), "--to", scratch.file("out"), "--verify"],
                         "\(scratch.file("out")): not installed (expand installs the source)\n", status: 1)
        #expect(folderNames(scratch.path) == ["src"])
    }

    /// The CRC-32 of the tree's file at `path`, in the report's hex, with the byte at `offset` inverted.
    private func crc(flipping offset: Int? = nil, of path: String) -> String {
        var bytes = Self.tree[path]!
        if let offset { bytes[offset] = ~bytes[offset] }
        return String(format: "%08x", RawZip.crc32(of: bytes))
    }

    @Test func uninstallRemovesTheTreeAndRefusesWhatAssetpackDidNotInstall() throws {
        let scratch = try scratchWithSource("cli-uninstall")
        let out = scratch.file("out")
        let identity = try install(scratch)
        try scratch.write("out/notes.txt", text: "the app's")
        try mkdir(scratch.file(".out.assetpack-staging"))
        try expectOutput(["uninstall", out], """
            removed \(out): 6 files (7.8 KiB) with 1 entry that assetpack did not install:
              notes.txt
            removed \(scratch.file(".out.assetpack-staging")), left by an interrupted expand

            """)
        #expect(folderNames(scratch.path) == ["src"])
        try expectOutput(["uninstall", out], "\(out): not installed; nothing to remove\n")
        try expectOutput(["uninstall", out, "--json"], #"{"bytes":0,"command":"uninstall","destination":"\#(out)","files":0,"leftovers":[],"#
                         + #""ok":true,"removed":false,"schema":1,"unknown":[]}"# + "\n")
        _ = try install(scratch)
        try expectOutput(["uninstall", out, "--json"], #"{"bytes":8025,"command":"uninstall","destination":"\#(out)","files":6,"identity":"\#(identity)","#
                         + #""leftovers":[],"ok":true,"removed":true,"schema":1,"unknown":[]}"# + "\n")
        _ = try install(scratch)
        try expectOutput(["uninstall", out, "-q"], "")

        let refused = try assetpack(["uninstall", scratch.file("src")])
        #expect(refused.status == 64 && refused.stdout == "")
        #expect(refused.stderr == "assetpack: error: \(scratch.file("src")): holds no install record (.assetpack/identity); "
                + "refusing to remove a folder that assetpack did not install\n")
        #expect(ExpandCLITests.read(scratch.file("src")) == Self.tree)
        let empty = try assetpack(["uninstall", ""])
        #expect(empty.status == 64)
        #expect(empty.stderr == "assetpack: error: '': names no destination folder (give the folder that expand --to named)\n")
    }
}
