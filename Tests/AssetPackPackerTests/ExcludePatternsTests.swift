import AssetPack
import Foundation
import Testing
import TestSupport
@testable import AssetPackPacker

/// `--exclude`: the wildcard of one name (``Glob``), how a pattern applies to a path (``ExcludePatterns``),
/// and what the packer leaves out of a real tree.
/// Exclude patterns: globs, anchoring, defaults, packing.
@Suite struct ExcludePatternsTests {
    /// Pattern, name, whether it matches.
    static let globTable: [(String, String, Bool)] = [
        ("*.swp", "notes.txt.swp", true), ("*.swp", "notes.swp.txt", false), ("*.swp", ".swp", true),
        ("*", "", true), ("*", "anything", true), ("", "", true), ("", "a", false),
        ("a*b*c", "abc", true), ("a*b*c", "aXXbYYc", true), ("a*b*c", "aXXbYY", false), ("a*b*c", "acb", false),
        ("*~", "draft.txt~", true), ("*~", "draft~.txt", false),
        (".#*", ".#lock", true), (".#*", "a.#lock", false),
        ("?.png", "a.png", true), ("?.png", "ab.png", false), ("?.png", "é.png", true),
        ("[abc].txt", "b.txt", true), ("[abc].txt", "d.txt", false),
        ("[a-c]1", "b1", true), ("[a-c]1", "d1", false), ("[!a-c]1", "d1", true), ("[^a-c]1", "a1", false),
        ("[]]x", "]x", true), ("[a-]", "-", true), ("[z-a]", "m", true),
        ("\\*", "*", true), ("\\*", "a", false), ("[\\]]", "]", true),
        ("Thumbs.db", "Thumbs.db", true), ("Thumbs.db", "thumbs.db", false),
        ("*.*.*", "a.b.c", true), ("*a", "aaaaaaaaaaaaaaaaaaaaaaaab", false), ("**", "x", true),
    ]

    @Test(arguments: globTable)
    func globMatchesOneName(_ row: (String, String, Bool)) throws {
        let glob = try Glob(Substring(row.0))
        #expect(glob.matches(Array(row.1.unicodeScalars)) == row.2, "\(row.0) vs \(row.1)")
    }

    @Test(arguments: ["[abc", "a\\", "[!", ""])
    func malformedPatternsAreRefusedNamingThePattern(_ pattern: String) {
        let error = expectError { _ = try ExcludePatterns([pattern]) }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.hasPrefix("exclude pattern \"\(pattern)\"") == true, "\(String(describing: error))")
    }

    @Test func emptyPartsAndBareSlashNameNothing() {
        for pattern in ["/", "a//b", "//"] {
            #expect(expectError { _ = try ExcludePatterns([pattern]) }?.code == .invalidArgument, "\(pattern)")
        }
    }

    /// Patterns, path, is it a folder, whether it is excluded.
    static let pathTable: [([String], String, Bool, Bool)] = [
        (["*.psd"], "art/deep/logo.psd", false, true),
        (["build"], "a/build", true, true), (["build"], "a/build", false, true),
        (["build/"], "a/build", false, false), (["build/"], "a/build", true, true),
        (["docs/*.md"], "docs/intro.md", false, true), (["docs/*.md"], "x/docs/intro.md", false, false),
        (["docs/*.md"], "docs/deep/intro.md", false, false),
        (["/README.md"], "README.md", false, true), (["/README.md"], "sub/README.md", false, false),
        (["raw/**/*.tmp"], "raw/a.tmp", false, true), (["raw/**/*.tmp"], "raw/x/y/a.tmp", false, true),
        (["raw/**/*.tmp"], "cooked/a.tmp", false, false),
        (["**/cache"], "cache", true, true), (["**/cache"], "a/b/cache", true, true),
        (["levels/**"], "levels/1/map.bin", false, true),
        (["a/*/c"], "a/b/c", false, true), (["a/*/c"], "a/b/x/c", false, false),
        (["one", "*.two"], "x.two", false, true), (["one", "*.two"], "x.three", false, false),
    ]

    @Test(arguments: pathTable)
    func patternsApplyToNamesOrAnchoredPaths(_ row: ([String], String, Bool, Bool)) throws {
        let patterns = try ExcludePatterns(row.0)
        #expect(patterns.excludes(try AssetPath(row.1), isDirectory: row.2) == row.3, "\(row.0) vs \(row.1)")
    }

    @Test func defaultsCoverTheUsualClutter() throws {
        let defaults = ExcludePatterns.defaults
        for (path, isDirectory) in [(".DS_Store", false), ("img/.DS_Store", false), ("img/._logo.png", false),
                                    ("Thumbs.db", false), ("a/desktop.ini", false), (".git", true), ("vendor/lib/.git", false),
                                    (".svn", true), (".hg", true), ("text/draft.txt~", false), ("a/.notes.txt.swp", false),
                                    ("a/.notes.txt.swo", false), ("a/.#notes.txt", false)] {
            #expect(defaults.excludes(try AssetPath(path), isDirectory: isDirectory), "\(path)")
        }
        for path in ["logo.png", ".gitignore", "git", "a/.well-known", "swp", "thumbs.db.txt"] {
            #expect(!defaults.excludes(try AssetPath(path), isDirectory: false), "\(path)")
        }
        #expect(ExcludePatterns.none.patterns.isEmpty)
        #expect(try ExcludePatterns(["*.psd"], includingDefaults: true).patterns == ExcludePatterns.defaultPatterns + ["*.psd"])
        #expect(BuildOptions().exclusions == .defaults)
    }

    /// A tree with clutter at several depths, and files a pattern leaves out.
    func clutteredTree(_ dir: TemporaryDirectory) throws -> String {
        for path in ["src/logo.png", "src/levels/1.json", "src/levels/.DS_Store", "src/levels/1.json~",
                     "src/.git/HEAD", "src/.git/objects/ab/cdef", "src/art/logo.psd", "src/art/keep.txt",
                     "src/docs/intro.md", "src/docs/deep/notes.md", "src/.#levels.json"] {
            try dir.write(path, text: "contents of \(path)")
        }
        return dir.file("src")
    }

    @Test func packerLeavesOutDefaultsAndPatternsInBothForms() throws {
        let dir = try TemporaryDirectory("exclude-pack")
        let src = try clutteredTree(dir)
        let exclusions = try ExcludePatterns(["*.psd", "docs/*.md"], includingDefaults: true)
        let options = BuildOptions(rules: PackingRules(threshold: 0), exclusions: exclusions)
        let folder = try Packer(options: options).build(source: src, output: dir.file("out"))
        try TestUnpacker.unpack(bundle: dir.file("out"), to: dir.file("back"))
        let expected = ["art", "art/keep.txt", "docs", "docs/deep", "docs/deep/notes.md", "levels", "levels/1.json", "logo.png"]
        #expect(try snapshot(dir.file("back")).keys.sorted() == expected)
        #expect(folder.files == 4 && folder.directories == 4)
        let archive = try Packer(options: options).buildArchive(source: src, output: dir.file("all.zip"))
        #expect(archive.identity == folder.identity)
    }

    @Test func noDefaultsPacksEverything() throws {
        let dir = try TemporaryDirectory("exclude-none")
        let src = try clutteredTree(dir)
        let summary = try Packer(options: BuildOptions(exclusions: .none)).build(source: src, output: dir.file("out"))
        #expect(summary.files == 11)
    }

    @Test func anExcludedLinkIsNotRefusedNorFollowed() throws {
        let dir = try TemporaryDirectory("exclude-link")
        try dir.write("src/keep.txt", text: "keep")
        try FileManager.default.createSymbolicLink(atPath: dir.file("src/dangling~"), withDestinationPath: "nowhere")
        try FileManager.default.createSymbolicLink(atPath: dir.file("src/shared"), withDestinationPath: dir.file("src-shared"))
        try dir.write("src-shared/big.bin", text: "shared")
        let options = BuildOptions(followSymlinks: true, exclusions: try ExcludePatterns(["shared/"], includingDefaults: true))
        let summary = try Packer(options: options).build(source: dir.file("src"), output: dir.file("out"))
        #expect(summary.files == 1 && summary.directories == 0)
    }
}
