import Foundation
import Testing
import TestSupport

/// `assetpack build --exclude`, `--no-default-excludes` and `--print-android-settings` end to end: the
/// built binary, what it prints (exactly), and the files it leaves.
/// `assetpack build --exclude` and `--print-android-settings`, through the CLI.
@Suite struct ExcludeAndroidCLITests {
    let tool = builtProduct("assetpack")

    /// A source with one file over the 1 MiB threshold, clutter the defaults leave out, and a Photoshop file.
    func sourceTree(_ dir: TemporaryDirectory) throws -> String {
        var random = SeededRandom(seed: 131)
        try dir.write("src/levels/map.txt", random.text(1_200_000))
        for path in ["src/logo.png", "src/.DS_Store", "src/levels/map.txt~", "src/.git/HEAD", "src/art/logo.psd",
                     "src/art/.logo.psd.swp"] {
            try dir.write(path, text: path)
        }
        return dir.file("src")
    }

    /// The lines of `assetpack build --help` from the heading `title` to the next blank line.
    func helpSection(_ title: String) throws -> String {
        let help = try run(tool, ["build", "--help"], environment: ["COLUMNS": "80"])
        #expect(help.status == 0)
        let lines = help.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        let start = try #require(lines.firstIndex(of: Substring(title)))
        let end = lines[start...].firstIndex(of: "") ?? lines.endIndex
        return lines[start..<end].joined(separator: "\n")
    }

    @Test func helpListsTheOptionsAndTheDefaults() throws {
        #expect(try helpSection("LEAVING FILES OUT:") == """
            LEAVING FILES OUT:
              --exclude <glob>        Leave out files and folders matching <glob>
                                      (repeatable): a name at any depth (*.psd), a path
                                      from <source> (docs/*.md, raw/**/*.tmp), folders only
                                      with a trailing / (cache/).
              --no-default-excludes   Pack what is left out by default: .DS_Store ._*
                                      Thumbs.db desktop.ini .git .svn .hg *~ *.swp *.swo
                                      .#*.
            """)
        #expect(try helpSection("OPTIONS:").contains("""
              --print-android-settings
                                      Also print the Gradle and aapt settings that ship
                                      this bundle in an Android app as it is.
            """))
    }

    @Test func defaultsAndPatternsAreLeftOut() throws {
        let dir = try TemporaryDirectory("cli-exclude")
        let src = try sourceTree(dir)
        let result = try run(tool, ["build", src, "-o", dir.file("out"), "--exclude", "*.psd", "--exclude", "art/", "--pack-limit", "0"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty)
        #expect(result.stdout.split(separator: "\n").dropFirst().first == "  2 files, 1 folder; 1 packed (0 stored, 0 reused)")
        let names = try FileManager.default.subpathsOfDirectory(atPath: dir.file("out")).filter { !$0.hasPrefix("assetpack-meta") }
        #expect(names.sorted() == ["levels", "levels/map.txt.zip", "logo.png"])
    }

    @Test func noDefaultExcludesPacksTheClutter() throws {
        let dir = try TemporaryDirectory("cli-no-defaults")
        let src = try sourceTree(dir)
        let result = try run(tool, ["build", src, "--archive", dir.file("all.zip"), "--no-default-excludes", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdoutBytes)) as? [String: Any])
        #expect(object["files"] as? Int == 7)
        #expect(object["directories"] as? Int == 3)
    }

    @Test func malformedPatternIsAUsageErrorNamingIt() throws {
        let dir = try TemporaryDirectory("cli-bad-glob")
        let result = try run(tool, ["build", try sourceTree(dir), "-o", dir.file("out"), "--exclude", "[a-z"])
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == "assetpack: error: exclude pattern \"[a-z\" has a [ without its ]. (see 'assetpack build --help')\n")
        #expect(!FileManager.default.fileExists(atPath: dir.file("out")))
    }

    @Test func androidSettingsForABundleWithOnePackedZip() throws {
        let dir = try TemporaryDirectory("cli-android")
        let src = try sourceTree(dir)
        let result = try run(tool, ["build", src, "-o", "app.bundle", "-q", "--print-android-settings", "--pack-limit", "0"], cwd: dir.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == """
            Android: ship app.bundle in the app's assets with these settings.
              build.gradle.kts:
                android {
                    androidResources {
                        noCompress += "zip"
                    }
                }
              aapt package: -0 zip
              noCompress keeps its 1 packed zip stored, so it is read in place.
              aapt's default ignore list keeps every name of the bundle, its assetpack-meta folder included.

            """)
    }

    @Test func androidSettingsCountTheZipsOfABundleWithPackArchives() throws {
        let dir = try TemporaryDirectory("cli-android-packs")
        let src = try sourceTree(dir)
        for number in 0..<30 { try dir.write("src/small/\(number).txt", text: String(repeating: "word \(number) ", count: 4_000)) }
        let result = try run(tool, ["build", src, "-o", "app.bundle", "-q", "--print-android-settings"], cwd: dir.path)
        #expect(result.status == 0, "\(result.stderr)")
        let zips = try #require(FileManager.default.enumerator(atPath: dir.file("app.bundle"))).compactMap { $0 as? String }
            .filter { $0.hasSuffix(".zip") }
        #expect(zips.count > 1 && zips.contains { $0.hasPrefix("assetpack-meta/packs/") })
        #expect(result.stdout.contains("noCompress keeps its \(zips.count) packed zips stored, so they are read in place."),
                "\(result.stdout)")
    }

    @Test func androidSettingsKeepNamesThatAaptWouldDrop() throws {
        let dir = try TemporaryDirectory("cli-android-odd")
        let src = try sourceTree(dir)
        try dir.write("src/_private/notes.txt", text: "underscore folder")
        try dir.write("src/docs/.well-known", text: "dot file")
        let result = try run(tool, ["build", src, "-o", "odd.bundle", "-q", "--print-android-settings", "--pack-limit", "0"], cwd: dir.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == """
            Android: ship odd.bundle in the app's assets with these settings.
              build.gradle.kts:
                android {
                    androidResources {
                        noCompress += "zip"
                        ignoreAssetsPattern = "!.svn:!.git:!.ds_store:!*.scc:!CVS:!thumbs.db:!picasa.ini:!*~"
                    }
                }
              aapt package: -0 zip --ignore-assets "!.svn:!.git:!.ds_store:!*.scc:!CVS:!thumbs.db:!picasa.ini:!*~"
              noCompress keeps its 1 packed zip stored, so it is read in place.
              ignoreAssetsPattern is aapt's default without ".*" and "<dir>_*", which would leave out
              odd.bundle/docs/.well-known and odd.bundle/_private.

            """)
    }

    @Test func androidSettingsForABundleWithNothingPackedFollowTheSummary() throws {
        let dir = try TemporaryDirectory("cli-android-plain")
        let src = try sourceTree(dir)
        let result = try run(tool, ["build", src, "-o", "plain.bundle", "--threshold", "2M", "--print-android-settings", "--pack-limit", "0"],
                             cwd: dir.path)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.first == "built plain.bundle from \(src)")
        #expect(lines.dropFirst(3).joined(separator: "\n") == """
            Android: ship plain.bundle in the app's assets; it needs no settings.
              Nothing is packed, so noCompress is not needed.
              aapt's default ignore list keeps every name of the bundle, its assetpack-meta folder included.

            """)
    }

    @Test func androidSettingsForOneArchiveNameItsSuffix() throws {
        let dir = try TemporaryDirectory("cli-android-archive")
        let src = try sourceTree(dir)
        let result = try run(tool, ["build", src, "--archive", "content.pak", "-q", "--print-android-settings"], cwd: dir.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == """
            Android: ship content.pak in the app's assets with these settings.
              build.gradle.kts:
                android {
                    androidResources {
                        noCompress += "pak"
                    }
                }
              aapt package: -0 pak
              noCompress keeps content.pak stored, so it is read in place.

            """)
    }

    @Test func androidSettingsAreTextNotJSON() throws {
        let dir = try TemporaryDirectory("cli-android-json")
        let result = try run(tool, ["build", try sourceTree(dir), "--json", "--print-android-settings"], cwd: dir.path)
        #expect(result.status == 64)
        // With --json, the usage error is a JSON line too.
        #expect(result.stdout == #"{"command":"build","error":{"class":"usage","code":"usage","message":"--print-android-settings prints text; leave out --json."},"exitStatus":64,"ok":false,"schema":1}"# + "\n")
        #expect(result.stderr.isEmpty)
        let text = try run(tool, ["build", try sourceTree(dir), "--print-android-settings", "--quiet", "--verbose"], cwd: dir.path)
        #expect(text.status == 64)
        #expect(text.stderr == "assetpack: error: Give either --verbose or --quiet, not both. (see 'assetpack build --help')\n")
    }
}
