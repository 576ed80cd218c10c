import AssetPack
import AssetPackSystem
import Foundation
import Testing
import TestSupport

/// What an earlier run, another process or a careless user left around an install is never trusted: a
/// staging tree is resumed only file by file after each file is checked again, nothing is written through a
/// planted hard link, and a record reached through a link proves nothing. Each case keeps a decoy folder
/// beside the destination that must not change.
@Suite struct HostileStateTests {
    /// Twelve files of a few KB and one of 300 KB, in folders.
    static let tree: AssetTree = {
        var random = SeededRandom(seed: 29)
        var files: [String: [UInt8]] = ["large.bin": random.bytes(300_000)]
        for index in 0..<12 { files["d\(index % 3)/f\(index).txt"] = random.text(2_000 + index) }
        return AssetTree(files: files)
    }()

    /// A scratch folder with the source tree in `src` and a decoy folder `decoy` holding `victim.txt` (the
    /// bytes of `d0/f0.txt`) and `other.txt`.
    struct Stage {
        let dir: TemporaryDirectory
        var source: String { dir.file("src") }
        var destination: String { dir.file("out/assets") }
        var staging: String { dir.file("out/.assets.assetpack-staging") }
        var decoy: String { dir.file("decoy") }

        init(_ label: String) throws {
            dir = try TemporaryDirectory(label)
            try HostileStateTests.tree.write(to: dir.file("src"))
            try mkdir(dir.file("decoy"))
            try writeBytes(HostileStateTests.tree.files["d0/f0.txt"]!, to: dir.file("decoy/victim.txt"))
            try writeBytes(Array("not the asset".utf8), to: dir.file("decoy/other.txt"))
            try mkdir(dir.file("out"))
        }

        /// Every file of the decoy folder with its bytes, mode and link count.
        func decoyState() throws -> [String: String] {
            var state: [String: String] = [:]
            for name in folderNames(decoy) {
                let attributes = try FileManager.default.attributesOfItem(atPath: decoy + "/" + name)
                state[name] = "\(try fileBytes(decoy + "/" + name)) \(attributes[.posixPermissions] ?? 0)"
            }
            return state
        }

        func installer(_ options: ExpansionOptions = ExpansionOptions(jobs: 1)) throws -> AssetInstaller {
            try AssetInstaller(source: DirectorySource(root: source), destination: destination, options: options)
        }

        /// An install of the tree cancelled after `files` files: its staging tree is left.
        func interrupt(after files: Int) throws {
            let cancellation = ExpansionCancellation()
            let error = #expect(throws: AssetPackError.self) {
                try installer().installSynchronously(progress: { if $0.filesWritten >= files { cancellation.cancel() } },
                                                     cancellation: cancellation)
            }
            #expect(error?.code == .cancelled)
            #expect(FileManager.default.fileExists(atPath: staging))
        }

        /// Gives `d1/f1.txt` of the source other bytes (the next version); that version's tree.
        func changeOneSourceFile() throws -> AssetTree {
            var next = HostileStateTests.tree
            next.files["d1/f1.txt"] = Array("a new version of this file".utf8)
            try writeBytes(next.files["d1/f1.txt"]!, to: source + "/d1/f1.txt")
            return next
        }

        /// The files the interrupted install wrote, relative to the staging tree.
        func written() -> [String] {
            ((try? FileManager.default.subpathsOfDirectory(atPath: staging)) ?? []).filter {
                !$0.hasPrefix(".assetpack") && HostileStateTests.tree.files[$0] != nil
            }.sorted()
        }

        /// The installed tree is exactly the source, every file with one name and its planned mode, and
        /// nothing of assetpack's is left beside it.
        func expectExactTree(sourceLocation: SourceLocation = #_sourceLocation) throws {
            #expect(DiskTree.read(destination) == DiskTree(HostileStateTests.tree), sourceLocation: sourceLocation)
            for path in HostileStateTests.tree.files.keys {
                var info = stat()
                #expect(lstat(destination + "/" + path, &info) == 0, sourceLocation: sourceLocation)
                #expect(info.st_nlink == 1, "\(path) has \(info.st_nlink) names", sourceLocation: sourceLocation)
                #expect(info.st_mode & 0o7777 == 0o644, "\(path) has mode \(String(info.st_mode & 0o7777, radix: 8))",
                        sourceLocation: sourceLocation)
            }
            #expect(hiddenNames(dir.file("out")).isEmpty, sourceLocation: sourceLocation)
        }
    }

    /// A file of the staging tree replaced by a hard link to a file elsewhere with the same bytes is not kept:
    /// the asset gets a name of its own, and the file elsewhere is never written.
    @Test func aHardLinkPlantedInStagingIsNotKept() throws {
        let stage = try Stage("hostile-state-link")
        try stage.interrupt(after: 5)
        let planted = stage.staging + "/d0/f0.txt"
        try? FileManager.default.removeItem(atPath: planted)
        try mkdir(stage.staging + "/d0")
        #expect(link(stage.decoy + "/victim.txt", planted) == 0)
        let before = try stage.decoyState()
        _ = try stage.installer().installSynchronously()
        try stage.expectExactTree()
        #expect(try stage.decoyState() == before)
    }

    /// A staged file changed to other bytes of the same size, or given other permission bits (set-user-ID
    /// included), is written again; a stray file planted in staging is removed.
    @Test func aTamperedStagedFileIsWrittenAgainAndAStrayIsRemoved() throws {
        let stage = try Stage("hostile-state-tamper")
        try stage.interrupt(after: 6)
        let written = stage.written()
        #expect(written.count >= 3, "\(written)")
        let changed = try #require(written.first), widened = try #require(written.last)
        var bytes = try fileBytes(stage.staging + "/" + changed)
        bytes[bytes.count / 2] ^= 0x20
        try writeBytes(bytes, to: stage.staging + "/" + changed)
        try chmod(stage.staging + "/" + changed, 0o644)
        try chmod(stage.staging + "/" + widened, 0o6777)
        try writeBytes(Array("stray".utf8), to: stage.staging + "/planted.txt")
        let before = try stage.decoyState()
        let result = try stage.installer().installSynchronously()
        #expect(result.filesResumed == written.count - 2, "kept \(result.filesResumed) of \(written.count)")
        try stage.expectExactTree()
        #expect(try stage.decoyState() == before)
    }

    /// A staging tree completed but never switched in (its stamp written) is not switched in unchecked: a
    /// file changed in it since is written again.
    @Test func aCompleteStagingTreeIsCheckedBeforeItIsSwitchedIn() throws {
        let stage = try Stage("hostile-state-complete")
        _ = try AssetInstaller(source: DirectorySource(root: stage.source), destination: stage.dir.file("out/reference"),
                               options: ExpansionOptions(jobs: 1)).installSynchronously()
        try FileManager.default.copyItem(atPath: stage.dir.file("out/reference"), toPath: stage.staging)
        try FileManager.default.removeItem(atPath: stage.dir.file("out/reference"))
        var bytes = try fileBytes(stage.staging + "/large.bin")
        bytes[1_000] ^= 0xFF
        try writeBytes(bytes, to: stage.staging + "/large.bin")
        try chmod(stage.staging + "/large.bin", 0o644)
        let before = try stage.decoyState()
        let result = try stage.installer().installSynchronously()
        #expect(!result.upToDate && result.filesResumed == Self.tree.files.count - 1)
        try stage.expectExactTree()
        #expect(try stage.decoyState() == before)
    }

    /// A destination whose record folder is a link to another install's record is not "up to date": it is
    /// refused as a folder assetpack did not make, and neither it nor the other install changes.
    @Test func aRecordReachedThroughALinkProvesNothing() throws {
        let stage = try Stage("hostile-state-record-link")
        let other = stage.decoy + "/installed"
        _ = try AssetInstaller(source: DirectorySource(root: stage.source), destination: other).installSynchronously()
        try mkdir(stage.destination)
        #expect(symlink(other + "/.assetpack", stage.destination + "/.assetpack") == 0)
        let installer = try stage.installer()
        #expect(!installer.isUpToDate())
        let before = DiskTree.read(other)
        let error = #expect(throws: AssetPackError.self) { try installer.installSynchronously() }
        #expect(error?.code == .invalidArgument && error?.path == stage.destination, "\(String(describing: error))")
        #expect(folderNames(stage.destination) == [".assetpack"])
        #expect(DiskTree.read(other) == before)
    }

    /// An installed file whose mode was changed since is not reused by an upgrade: it is written again with
    /// the mode the bundle gives it.
    @Test func anInstalledFileWhoseModeChangedIsWrittenAgainByAnUpgrade() throws {
        let stage = try Stage("hostile-state-mode")
        let first = try stage.installer().installSynchronously()
        #expect(!first.upToDate)
        try chmod(stage.destination + "/d0/f0.txt", 0o400)
        let expected = try stage.changeOneSourceFile()
        let result = try stage.installer().installSynchronously()
        #expect(result.filesLinked == Self.tree.files.count - 2, "linked \(result.filesLinked)")
        #expect(DiskTree.read(stage.destination) == DiskTree(expected))
        #expect(TreeDamage.permissions(stage.destination + "/d0/f0.txt") == 0o644)
    }

    /// An installed file changed in place to other bytes of the same size (its modification time moves), or
    /// replaced by a copy with the same bytes, size, mode and time (another inode), is not reused by an upgrade:
    /// only the file the install left, as its record describes it (inode and modification time), is linked.
    @Test func anInstalledFileChangedOrReplacedIsWrittenAgainByAnUpgrade() throws {
        let stage = try Stage("hostile-state-content")
        _ = try stage.installer().installSynchronously()
        usleep(20_000)  // past the file system's timestamp granularity, as a later edit would be
        try TreeDamage.flipByte(stage.destination + "/d0/f0.txt", at: 10)
        let copy = stage.destination + "/d2/f2.txt"
        try FileManager.default.copyItem(atPath: copy, toPath: copy + ".copy")
        let original = try FileManager.default.attributesOfItem(atPath: copy)
        try FileManager.default.removeItem(atPath: copy)
        try FileManager.default.moveItem(atPath: copy + ".copy", toPath: copy)
        try FileManager.default.setAttributes([.modificationDate: original[.modificationDate]!, .posixPermissions: 0o644],
                                              ofItemAtPath: copy)
        let expected = try stage.changeOneSourceFile()
        let result = try stage.installer().installSynchronously()
        #expect(result.filesLinked == Self.tree.files.count - 3, "linked \(result.filesLinked)")
        #expect(DiskTree.read(stage.destination) == DiskTree(expected))
        let again = try stage.installer().installSynchronously()
        #expect(again.upToDate)
    }

    /// A file of a folder source edited in place to other bytes of the same size is not "up to date": the
    /// folder's identity covers each file's modification time, since its contents are not read to plan it.
    @Test func aFolderSourceEditedInPlaceIsNeverCalledUpToDate() throws {
        let stage = try Stage("hostile-state-edited")
        _ = try stage.installer().installSynchronously()
        let path = stage.source + "/d2/f2.txt"
        var bytes = try fileBytes(path)
        bytes[0] ^= 0x01
        try writeBytes(bytes, to: path)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_700_000_000)], ofItemAtPath: path)
        let again = try stage.installer().installSynchronously()
        #expect(!again.upToDate)
        #expect(try fileBytes(stage.destination + "/d2/f2.txt") == bytes)
        #expect(try stage.installer().installSynchronously().upToDate, "unchanged since: up to date")
    }

    /// A folder that holds the user's files and a stray `.assetpack/identity` (no install record beside it) is
    /// not assetpack's: it is neither "up to date" nor replaced, the refusal says why, and nothing in it changes.
    @Test func aStrayIdentityFileDoesNotMakeAFolderAssetpacks() throws {
        let stage = try Stage("hostile-state-identity")
        let other = stage.decoy + "/installed"
        _ = try AssetInstaller(source: DirectorySource(root: stage.source), destination: other).installSynchronously()
        try mkdir(stage.destination)
        try mkdir(stage.destination + "/.assetpack")
        try writeBytes(try fileBytes(other + "/.assetpack/identity"), to: stage.destination + "/.assetpack/identity")
        try writeBytes(Array("the user's".utf8), to: stage.destination + "/mine.txt")
        let before = DiskTree.read(stage.destination)
        let installer = try stage.installer()
        #expect(!installer.isUpToDate())
        let error = #expect(throws: AssetPackError.self) { try installer.installSynchronously() }
        #expect(error?.code == .invalidArgument && error?.path == stage.destination, "\(String(describing: error))")
        #expect(error?.message.contains("no install record") == true)
        #expect(DiskTree.read(stage.destination) == before)
    }

    /// A FIFO put in place of the record's identity file, and a name that is not UTF-8 put into the installed
    /// tree, neither hang nor wedge the next install: the FIFO is never opened for reading (the record proves
    /// nothing, so the tree is installed again), and the user's file with the odd name is carried over.
    @Test func aFIFOInTheRecordAndANameThatIsNotUTF8NeitherHangNorWedge() throws {
        let stage = try Stage("hostile-state-fifo")
        _ = try stage.installer().installSynchronously()
        try FileManager.default.removeItem(atPath: stage.destination + "/.assetpack/identity")
        #expect(mkfifo(stage.destination + "/.assetpack/identity", 0o644) == 0)
        let odd = stage.destination.utf8CString.dropLast().map { UInt8(bitPattern: $0) } + Array("/odd".utf8) + [0xFF, 0]
        let fd = odd.withUnsafeBufferPointer { open(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), O_CREAT | O_WRONLY, 0o644) }
        #expect(fd >= 0)
        close(fd)
        let before = try stage.decoyState()
        let installer = try stage.installer()
        #expect(!installer.isUpToDate())
        let result = try installer.installSynchronously()
        #expect(!result.upToDate)
        #expect(DiskTree.read(stage.destination)?.files.filter { $0.key != "odd\u{FFFD}" } == DiskTree(HostileStateTests.tree).files)
        #expect(folderNames(stage.destination).count == folderNames(stage.source).count + 2, "the record and the user's file")
        #expect(try stage.installer().installSynchronously().upToDate)
        #expect(try stage.decoyState() == before)
    }

    /// An archive inside the source that must be copied to be read at random (deflated in an APK) is copied into
    /// the install's staging tree, never the system's temporary folder, and nothing of it is left.
    @Test func anInnerArchiveIsCopiedIntoStagingAndNothingIsLeft() throws {
        let stage = try Stage("hostile-state-spool")
        let inner = RawZip([RawZip.file("levels/one.txt", Array("one\n".utf8))]).bytes
        try RawZip([try RawZip.deflated("assets/levels.zip", inner)]).write(to: stage.dir.file("app.apk"))
        let source = try AssetSources.container(path: stage.dir.file("app.apk"), root: "assets")
        let before = try stage.decoyState()
        var options = ExpansionOptions(jobs: 1)
        #expect(options.spoolFolder == nil)
        let installer = try AssetInstaller(source: source, destination: stage.destination, options: options)
        options = installer.options
        #expect(options.spoolFolder == stage.staging, "the copy goes where the install writes")
        _ = try installer.installSynchronously()
        #expect(DiskTree.read(stage.destination)?.files == ["levels/one.txt": Array("one\n".utf8)])
        #expect(hiddenNames(stage.dir.file("out")).isEmpty)
        #expect(try stage.decoyState() == before)
    }
}
