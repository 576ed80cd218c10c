import AssetPackZip
import Foundation
import TestSupport
import Testing
@testable import AssetPack

@Suite struct PackedBundleSourceTests {
    let tree = AssetTree(files: ["a.txt": Array("hello, assets\n".utf8), "big.bin": Array(repeating: 7, count: 200_000),
                                 "d/c.txt": Array("see".utf8)], emptyDirectories: ["empty"])

    private func bundle(_ scratch: TemporaryDirectory) throws -> PackedBundle {
        try PackedBundle(tree, packed: ["big.bin": .deflate], scratch: scratch)
    }

    /// Writes `bundle` as a folder and returns the view over it.
    private func folderView(_ bundle: PackedBundle, _ scratch: TemporaryDirectory) throws -> PackedBundleSource {
        try bundle.stored.write(to: scratch.file("bundle"))
        return try PackedBundleSource(base: DirectorySource(root: scratch.file("bundle")))
    }

    @Test func showsTheLogicalTree() throws {
        let scratch = try TemporaryDirectory("packed-view")
        let view = try folderView(try bundle(scratch), scratch)
        #expect(try Set(view.base.list(.root)) == ["assetpack-meta", "a.txt", "big.bin.zip", "d"])
        #expect(try view.list(.root) == ["a.txt", "big.bin", "d", "empty"])
        #expect(try view.size(of: AssetPath("big.bin")) == 200_000)
        #expect(try view.list(AssetPath("assetpack-meta")) == [])
    }

    @Test func aTamperedPlainFileFailsVerificationNamingIt() throws {
        let scratch = try TemporaryDirectory("packed-tampered")
        let view = try folderView(try bundle(scratch), scratch)
        try scratch.write("bundle/a.txt", text: "HELLO, assets\n")
        #expect(try AssetWalker(view).walk() == tree.items, "the walk never reads, so it still succeeds")
        let stream = try view.open(AssetPath("a.txt"))
        let failure = try #require(#expect(throws: ZipError.self) { try stream.readAll() })
        let error = AssetPackError(failure)
        #expect(error.code == .verification)
        #expect(error.message.contains("CRC-32 mismatch"))
        #expect(error.description.hasPrefix(scratch.file("bundle") + ": a.txt: "), "\(error)")
    }

    @Test func aTruncatedPlainFileFailsVerification() throws {
        let scratch = try TemporaryDirectory("packed-truncated")
        let view = try folderView(try bundle(scratch), scratch)
        try scratch.write("bundle/d/c.txt", text: "se")
        let failure = try #require(#expect(throws: ZipError.self) { try view.open(AssetPath("d/c.txt")).readAll().count })
        #expect(AssetPackError(failure).code == .verification)
    }

    /// The archive is intact but the manifest records another CRC-32 (and an identity that matches it):
    /// caught with random access and forward-only.
    @Test func aPackedFileIsCheckedAgainstTheManifest() throws {
        let scratch = try TemporaryDirectory("packed-crc")
        var packed = try bundle(scratch)
        let index = try #require(packed.manifest.entries.firstIndex { $0.path == "big.bin" })
        packed.manifest.entries[index].crc32! ^= 1
        packed.manifest.identity = ContentIdentity.of(packed.manifest.entries)
        packed.files[BundleManifest.path] = try packed.manifest.encodedJSON()
        packed.files[BundleManifest.identityPath] = Array(packed.manifest.identity.utf8)
        let views = [try folderView(packed, scratch), try PackedBundleSource(base: AndroidLikeSource(files: packed.files))]
        for view in views {
            let failure = try #require(#expect(throws: ZipError.self) { try view.open(AssetPath("big.bin")).readAll().count })
            #expect(AssetPackError(failure).code == .verification)
        }
    }

    /// A file the manifest lists but the bundle lacks is a broken bundle, not an empty folder.
    @Test func missingStorageIsAManifestError() throws {
        let scratch = try TemporaryDirectory("packed-missing")
        var packed = try bundle(scratch)
        packed.files["a.txt"] = nil
        packed.files["big.bin.zip"] = nil
        let views = [try folderView(packed, scratch), try PackedBundleSource(base: AndroidLikeSource(files: packed.files))]
        for view in views {
            for path in ["a.txt", "big.bin"] {
                let error = #expect(throws: AssetPackError.self) { try view.open(AssetPath(path)) }
                #expect(error?.code == .manifest, "\(path): \(String(describing: error))")
            }
            let walked = #expect(throws: AssetPackError.self) { try AssetWalker(view).walk() }
            #expect(walked?.code == .manifest)
        }
    }

    @Test func aMissingArchiveEntryIsAManifestError() throws {
        let scratch = try TemporaryDirectory("packed-entry")
        var packed = try bundle(scratch)
        let index = try #require(packed.manifest.entries.firstIndex { $0.path == "big.bin" })
        packed.manifest.entries[index].storage?.entry = "other.bin"
        packed.files[BundleManifest.path] = try packed.manifest.encodedJSON()
        let views = [try folderView(packed, scratch), try PackedBundleSource(base: AndroidLikeSource(files: packed.files))]
        for view in views {
            let error = #expect(throws: AssetPackError.self) { try view.open(AssetPath("big.bin")) }
            #expect(error?.code == .manifest)
            #expect(error?.message.contains("other.bin") == true)
        }
    }

    /// Logical names that differ only in Unicode normalization stay two files.
    @Test func keepsNamesThatDifferOnlyInNormalization() throws {
        let composed = "caf\u{E9}.txt", decomposed = "cafe\u{301}.txt"
        let one = Array("one".utf8), two = Array("two".utf8)
        let manifest = BundleManifest(threshold: 1, generator: "tests", entries: [
            .file(composed, size: 3, crc32: CRC32.checksum(one), storage: .plain("1.bin")),
            .file(decomposed, size: 3, crc32: CRC32.checksum(two), storage: .plain("2.bin")),
        ])
        let view = try PackedBundleSource(base: AndroidLikeSource(files: ["1.bin": one, "2.bin": two]), manifest: manifest)
        #expect(try view.list(.root).map { Array($0.utf8) } == [Array(decomposed.utf8), Array(composed.utf8)])
        #expect(try view.open(AssetPath(composed)).readAll() == one)
        #expect(try view.open(AssetPath(decomposed)).readAll() == two)
    }

    @Test func withoutAManifestTheSourceIsUsedDirectly() throws {
        let source = AndroidLikeSource(files: ["a.txt": [1]])
        let error = #expect(throws: AssetPackError.self) { try PackedBundleSource(base: source) }
        #expect(error?.code == .notFound)
        #expect(try AssetSources.view(of: source) is AndroidLikeSource)
    }

    /// A manifest whose identity is not that of its entries is refused, however the view is made: the
    /// identity is what an install records, so it must describe exactly these files.
    @Test func aManifestWhoseIdentityDoesNotMatchIsRefused() throws {
        let scratch = try TemporaryDirectory("packed-identity")
        var packed = try bundle(scratch)
        let index = try #require(packed.manifest.entries.firstIndex { $0.path == "a.txt" })
        packed.manifest.entries[index].crc32! ^= 1
        packed.files[BundleManifest.path] = try packed.manifest.encodedJSON()
        let base = AndroidLikeSource(files: packed.files)
        for error in [#expect(throws: AssetPackError.self) { try PackedBundleSource(base: base) },
                      #expect(throws: AssetPackError.self) { try AssetSources.view(of: base) },
                      #expect(throws: AssetPackError.self) { try PackedBundleSource(base: base, manifest: packed.manifest) },
                      #expect(throws: AssetPackError.self) { try BundleManifest.read(from: base) }] {
            #expect(error?.code == .manifest)
            #expect(error?.message.contains("identity") == true, "\(String(describing: error))")
        }
    }

    /// The small identity file must agree with the manifest.
    @Test func anIdentityFileThatDisagreesIsRefused() throws {
        let scratch = try TemporaryDirectory("packed-identity-file")
        var packed = try bundle(scratch)
        packed.files[BundleManifest.identityPath] = Array("0000".utf8)
        let error = #expect(throws: AssetPackError.self) { try PackedBundleSource(base: AndroidLikeSource(files: packed.files)) }
        #expect(error?.code == .manifest)
    }

    @Test func aMalformedManifestIsRefused() throws {
        let source = AndroidLikeSource(files: [BundleManifest.path: Array("{\"format\": 1}".utf8)])
        let error = #expect(throws: AssetPackError.self) { try AssetSources.view(of: source) }
        #expect(error?.code == .manifest)
    }

    @Test(arguments: [
        [BundleManifest.Entry.file("x", size: 1, crc32: 0, storage: .plain("x")), .file("x/y", size: 1, crc32: 0, storage: .plain("y"))],
        [BundleManifest.Entry.file("x", size: 1, crc32: 0, storage: .plain("x")), .directory("x")],
        [BundleManifest.Entry.file("x", size: 1, crc32: 0, storage: .plain("../x"))],
        [BundleManifest.Entry.file("x", size: 1, crc32: 0, storage: .packed(archive: "x.zip", entry: "", method: "stored", compressedSize: 1))],
    ])
    func refusesAManifestThatIsNoTree(_ entries: [BundleManifest.Entry]) throws {
        let manifest = BundleManifest(threshold: 1, generator: "tests", entries: entries)
        let error = #expect(throws: AssetPackError.self) {
            try PackedBundleSource(base: AndroidLikeSource(files: [:]), manifest: manifest)
        }
        #expect(error?.code == .manifest)
    }
}
