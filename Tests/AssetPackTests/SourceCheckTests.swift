import AssetPack
import Foundation
import Testing
import TestSupport

/// No silent empty result (``SourceCheck``): a root that is missing or is a file, a missing source folder,
/// and a tree without a file are errors naming the archive or folder and the root — nothing is written,
/// no record, no folder — unless the caller allows an empty tree (``ExpansionOptions/allowsEmpty``).
@Suite struct SourceCheckTests {
    /// `app.apk` with `assets/a.txt`, `assets/d/b.txt` and the empty folder `assets/empty/sub/`.
    static func apk(in work: TemporaryDirectory) throws -> String {
        try RawZip([RawZip.file("assets/a.txt", [1]), RawZip.file("assets/d/b.txt", [2]),
                    RawZip.directory("assets/empty/sub/")]).write(to: work.file("app.apk"))
        return work.file("app.apk")
    }

    /// Installs `source` into `work/new/assets`; returns the error, and checks that nothing was left.
    static func refuse(_ source: any AssetSource, in work: TemporaryDirectory, options: ExpansionOptions = ExpansionOptions(),
                       sourceLocation: SourceLocation = #_sourceLocation) -> AssetPackError? {
        let before = HostileStage.allNames(work.path)
        let error = #expect(throws: AssetPackError.self, sourceLocation: sourceLocation) {
            try AssetInstaller(source: source, destination: work.file("new/assets"), options: options).installSynchronously()
        }
        #expect(HostileStage.allNames(work.path) == before, "something was left", sourceLocation: sourceLocation)
        return error
    }

    @Test func aMisspeltRootOfAnArchiveIsNotFound() throws {
        let work = try TemporaryDirectory("check-root-typo")
        let apk = try Self.apk(in: work)
        let error = Self.refuse(try ZipAssetSource(path: apk, root: "asets"), in: work)
        #expect(error?.code == .notFound)
        #expect(error?.description == "\(apk): the archive has no folder \"asets\" (the root to expand)")
        // The same through AssetSources, as the command line opens it.
        let opened = Self.refuse(try AssetSources.open(path: apk, root: "asets"), in: work)
        #expect(opened?.description == error?.description)
    }

    @Test func aRootThatIsAFileIsNotFound() throws {
        let work = try TemporaryDirectory("check-root-file")
        let apk = try Self.apk(in: work)
        let error = Self.refuse(try ZipAssetSource(path: apk, root: "assets/a.txt"), in: work)
        #expect(error?.code == .notFound)
        #expect(error?.description == "\(apk): the root \"assets/a.txt\" is a file in the archive, not a folder")
    }

    @Test func aMissingSourceFolderIsNotFound() throws {
        let work = try TemporaryDirectory("check-folder")
        try work.write("file.txt", text: "a file")
        let missing = Self.refuse(DirectorySource(root: work.file("nothere")), in: work)
        #expect(missing?.code == .notFound)
        #expect(missing?.description == "\(work.file("nothere")): no such folder")
        let file = Self.refuse(DirectorySource(root: work.file("file.txt")), in: work)
        #expect(file?.code == .notFound)
        #expect(file?.description == "\(work.file("file.txt")): is a file, not a folder")
        let container = #expect(throws: AssetPackError.self) { try AssetSources.container(path: work.file("nothere"), root: nil) }
        #expect(container?.code == .notFound)
        #expect(container?.description == "\(work.file("nothere")): no such file or folder")
    }

    @Test func anEmptyTreeIsRefusedUnlessAllowed() throws {
        let work = try TemporaryDirectory("check-empty")
        let apk = try Self.apk(in: work)
        let source = try ZipAssetSource(path: apk, root: "assets/empty")
        let error = Self.refuse(source, in: work)
        #expect(error?.code == .notFound)
        #expect(error?.description == "\(apk) (assets/empty/): holds no files, so there is nothing to expand (check the path and the "
                + "root folder given; to expand an empty tree, allow it: --allow-empty)")
        try FileManager.default.createDirectory(atPath: work.file("folder"), withIntermediateDirectories: true)
        #expect(Self.refuse(DirectorySource(root: work.file("folder")), in: work)?.code == .notFound)

        let result = try AssetInstaller(source: source, destination: work.file("new/assets"),
                                        options: ExpansionOptions(allowsEmpty: true)).installSynchronously()
        #expect(result.files == 0)
        #expect(DiskTree.read(work.file("new/assets")) == DiskTree(AssetTree(files: [:], emptyDirectories: ["sub"])))
        #expect(try AssetInstaller(source: source, destination: work.file("new/assets"),
                                   options: ExpansionOptions(allowsEmpty: true)).installSynchronously().upToDate)
    }

    @Test func theRightRootStillExpands() throws {
        let work = try TemporaryDirectory("check-root-good")
        let apk = try Self.apk(in: work)
        try AssetInstaller(source: try ZipAssetSource(path: apk, root: "assets"), destination: work.file("out")).installSynchronously()
        #expect(DiskTree.read(work.file("out"))?.files == ["a.txt": [1], "d/b.txt": [2]])
    }
}
