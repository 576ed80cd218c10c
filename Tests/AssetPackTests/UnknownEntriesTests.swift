import AssetPack
import Foundation
import Testing
import TestSupport

/// What the app or the user put into a destination is never deleted by an upgrade unless asked: it is
/// carried into the new version and reported (`UnknownEntries`), or removed and reported with
/// ``ExpansionOptions/removesUnknownEntries``; a name the new version uses is a conflict, and nothing changes.
@Suite struct UnknownEntriesTests {
    static let version1 = AssetTree(files: ["keep.txt": Array("kept\n".utf8), "change.txt": Array("one\n".utf8),
                                            "old/x.txt": Array("gone in 2\n".utf8), "d/inner.txt": Array("inner\n".utf8)])
    static let version2 = AssetTree(files: ["keep.txt": Array("kept\n".utf8), "change.txt": Array("two, longer\n".utf8),
                                            "d/inner.txt": Array("inner\n".utf8), "new.txt": Array("new in 2\n".utf8)])

    /// A destination holding version 1 and the user's entries: `notes.txt`, `d/mine.txt` (in a folder of the
    /// bundle), `old/mine.txt` (in a folder version 2 drops), `user/a/b.txt` (a folder of their own) and a
    /// file whose name is not UTF-8.
    struct Stage {
        let dir: TemporaryDirectory
        var destination: String { dir.file("out/assets") }
        /// The path of the file whose name is the bytes FF 6E 61 6D 65 (not UTF-8), as a C string.
        var oddPath: [CChar] { (destination + "/").utf8CString.dropLast() + [CChar(bitPattern: 0xFF)] + "name".utf8CString }

        init(_ label: String) throws {
            dir = try TemporaryDirectory(label)
            try UnknownEntriesTests.version1.write(to: dir.file("v1"))
            try UnknownEntriesTests.version2.write(to: dir.file("v2"))
            _ = try install("v1")
            for (path, text) in [("notes.txt", "mine"), ("d/mine.txt", "mine too"), ("old/mine.txt", "also mine"),
                                 ("user/a/b.txt", "deep")] {
                try makeParent(destination + "/" + path)
                try writeBytes(Array(text.utf8), to: destination + "/" + path)
            }
            let fd = open(oddPath, O_CREAT | O_WRONLY | O_EXCL, 0o600)
            #expect(fd >= 0)
            close(fd)
        }

        func install(_ version: String, removing: Bool = false) throws -> ExpansionResult {
            var options = ExpansionOptions(jobs: 1)
            options.removesUnknownEntries = removing
            return try AssetInstaller(source: DirectorySource(root: dir.file(version)), destination: destination, options: options)
                .installSynchronously()
        }

        /// The inode of each of the user's entries.
        func userInodes() -> [String: UInt64?] {
            Dictionary(uniqueKeysWithValues: ["notes.txt", "d/mine.txt", "old/mine.txt", "user/a/b.txt"].map {
                ($0, inodeNumber(destination + "/" + $0))
            })
        }
    }

    /// The user's entries as a result lists them (a name that is not UTF-8 shown with U+FFFD).
    static let userEntries = ["d/mine.txt", "notes.txt", "old/mine.txt", "user/", "\u{FFFD}name"]

    @Test func anUpgradeCarriesWhatAssetpackDidNotWriteAndSaysSo() throws {
        let stage = try Stage("unknown-kept")
        let before = stage.userInodes()
        let result = try stage.install("v2")
        #expect(!result.upToDate)
        #expect(Set(result.unknownKept) == Set(Self.userEntries), "\(result.unknownKept)")
        #expect(result.unknownDeleted.isEmpty)
        #expect(stage.userInodes() == before, "the same files, not copies")
        #expect(try fileBytes(stage.destination + "/user/a/b.txt") == Array("deep".utf8))
        var info = stat()
        #expect(lstat(stage.oddPath, &info) == 0, "the file whose name is not UTF-8 is still there")
        // The bundle's own files are version 2's exactly.
        #expect(try fileBytes(stage.destination + "/change.txt") == Array("two, longer\n".utf8))
        #expect(!FileManager.default.fileExists(atPath: stage.destination + "/old/x.txt"))
        #expect(hiddenNames(stage.dir.file("out")).isEmpty)
        // The entries are still the user's: status lists them as unknown, and the next upgrade keeps them again.
        let status = try InstalledTree.status(at: stage.destination)
        #expect(Set(status.unknown).isSuperset(of: ["notes.txt", "user/"]), "\(status.unknown)")
        let again = try stage.install("v1")
        #expect(Set(again.unknownKept) == ["d/mine.txt", "notes.txt", "old/", "user/", "\u{FFFD}name"], "\(again.unknownKept)")
        #expect(try fileBytes(stage.destination + "/old/mine.txt") == Array("also mine".utf8))
        #expect(try fileBytes(stage.destination + "/old/x.txt") == Array("gone in 2\n".utf8))
    }

    @Test func removalIsAskedForAndListed() throws {
        let stage = try Stage("unknown-removed")
        let result = try stage.install("v2", removing: true)
        #expect(Set(result.unknownDeleted) == Set(Self.userEntries), "\(result.unknownDeleted)")
        #expect(result.unknownKept.isEmpty)
        let expected = DiskTree(Self.version2)
        #expect(DiskTree.read(stage.destination) == expected)
    }

    /// A name the new version uses for a file of its own is refused, naming the path; nothing changes.
    @Test func aNameTheNewVersionUsesIsAConflictAndNothingChanges() throws {
        let stage = try Stage("unknown-conflict")
        try writeBytes(Array("the user's new.txt".utf8), to: stage.destination + "/new.txt")
        let before = DiskTree.read(stage.destination)
        let error = #expect(throws: AssetPackError.self) { _ = try stage.install("v2") }
        #expect(error?.code == .conflict && error?.path == stage.destination + "/new.txt", "\(String(describing: error))")
        #expect(DiskTree.read(stage.destination) == before)
        #expect(hiddenNames(stage.dir.file("out")).isEmpty)
    }

    /// An install whose identity file was lost is still assetpack's (its record proves it): the next install
    /// reuses its files and keeps the user's entries.
    @Test func anInstallThatLostItsIdentityFileIsUpgradedFromItsRecord() throws {
        let stage = try Stage("unknown-identity-lost")
        try FileManager.default.removeItem(atPath: stage.destination + "/.assetpack/identity")
        let result = try stage.install("v1")
        #expect(!result.upToDate)
        #expect(result.filesLinked == UnknownEntriesTests.version1.files.count)
        #expect(Set(result.unknownKept) == Set(Self.userEntries))
        #expect(try stage.install("v1").upToDate)
    }

    /// The sweep reads the record alongside a walk that takes each folder's names in byte order: a folder `a`
    /// whose siblings `a-b`, `a.txt` and `a0` sort between `a` and `a/…` in plain byte order (not in the record's,
    /// where `/` is the lowest byte), and unknown entries before, between and after them, are each found once,
    /// and no file of the bundle is taken for the user's.
    @Test func namesThatSortAroundAFolderAreTold() throws {
        let dir = try TemporaryDirectory("unknown-order")
        var files: [String: [UInt8]] = [:]
        for path in ["a/x.txt", "a/y/z.txt", "a-b", "a.txt", "a0", "b/a", "b.txt"] { files[path] = Array(path.utf8) }
        try AssetTree(files: files, emptyDirectories: ["a/empty"]).write(to: dir.file("v1"))
        files["a0"] = Array("changed".utf8)
        try AssetTree(files: files, emptyDirectories: ["a/empty"]).write(to: dir.file("v2"))
        let destination = dir.file("out")
        func install(_ version: String) throws -> ExpansionResult {
            try AssetInstaller(source: DirectorySource(root: dir.file(version)), destination: destination,
                               options: ExpansionOptions(jobs: 1)).installSynchronously()
        }
        _ = try install("v1")
        let mine = ["a/mine", "a/y/mine", "a-a", "a.mine", "a/empty/mine", "0", "zz/deep/file"]
        for path in mine {
            try makeParent(destination + "/" + path)
            try writeBytes(Array(path.utf8), to: destination + "/" + path)
        }
        let result = try install("v2")
        #expect(result.unknownKept == ["0", "a-a", "a.mine", "a/empty/mine", "a/mine", "a/y/mine", "zz/"])
        for path in mine { #expect(try fileBytes(destination + "/" + path) == Array(path.utf8)) }
        #expect(try fileBytes(destination + "/a0") == Array("changed".utf8))
    }
}
