import AssetPack
import AssetPackAndroid
import AssetPackZip
import Foundation
import Testing
import TestSupport

/// ``NDKAssetSource`` on a real aapt-built APK, read through Android 10's AssetManager: every call it
/// offers presents the assets exactly (as the conformance checker of `AssetPackTests` demands of every
/// source), stored assets offer random access and deflated ones do not, and damage is caught.
@Suite(AndroidHost.needed, APKBuilder.aapt.needed, APKBuilder.zipalign.needed)
struct NDKAssetSourceTests {
    /// An aapt APK of ``FolderTree/androidAssets`` opened with one backend.
    final class Fixture {
        let scratch: TemporaryDirectory
        let host: HostAssetManager
        let apk: ZipArchive

        init(_ backend: AssetBackend) throws {
            try AndroidHost.require()
            try ExternalTool.require(APKBuilder.aapt, APKBuilder.zipalign)
            scratch = try TemporaryDirectory("ndk-source")
            try FolderTree.androidAssets.write(to: scratch.file("assets"))
            try APKBuilder.build(assets: scratch.file("assets"), to: scratch.file("app.apk"))
            host = try HostAssetManager(apk: scratch.file("app.apk"), backend: backend)
            apk = try ZipArchive(path: scratch.file("app.apk"))
        }

        func source(root: String = "") throws -> NDKAssetSource {
            try NDKAssetSource(manager: host.manager, apkPath: host.apk, root: root)
        }

        /// The assets aapt stored rather than deflated.
        var storedFiles: Set<String> {
            Set(apk.entries.filter { $0.name.hasPrefix("assets/") && $0.kind == .file && $0.method == .stored }
                .map { String($0.name.dropFirst("assets/".count)) })
        }
    }

    @Test("list, open and size present the APK's assets exactly", arguments: AssetBackend.allCases)
    func presentsTheAssets(_ backend: AssetBackend) throws {
        let fixture = try Fixture(backend)
        let source = try fixture.source()
        let tree = FolderTree.androidAssets.withoutEmptyFolders
        for folder in [""] + tree.folders.sorted() {
            let expected = Set((Array(tree.files.keys) + Array(tree.folders)).compactMap { child($0, of: folder) })
            #expect(Set(try source.list(try AssetPath(folder))) == expected, "list(\(folder))")
        }
        for (file, bytes) in tree.files {
            let path = try AssetPath(file)
            #expect(try source.open(path).readAll() == bytes, "open(\(file))")
            #expect(try source.size(of: path) == UInt64(bytes.count), "size(of: \(file))")
            #expect(try source.list(path) == [], "list(\(file)) of a file")
        }
        #expect(try AssetWalker(source).walk() == walkedItems(tree))
    }

    @Test("Stored assets give random access through AAsset_openFileDescriptor64, deflated ones nil",
          arguments: AssetBackend.allCases)
    func storedAssetsOfferRandomAccess(_ backend: AssetBackend) throws {
        let fixture = try Fixture(backend)
        let source = try fixture.source()
        let stored = fixture.storedFiles
        #expect(stored.contains("big/model.bin") && !stored.contains("big/dictionary.txt"), "aapt stored \(stored.sorted())")
        for (file, bytes) in FolderTree.androidAssets.files {
            let range = try source.randomAccess(try AssetPath(file))
            #expect((range != nil) == stored.contains(file), "randomAccess(\(file))")
            guard let range else { continue }
            #expect(try readRange(range, at: 0, count: bytes.count + 10) == bytes, "randomAccess(\(file)) bytes")
            let tail = max(0, bytes.count - 7)
            #expect(try readRange(range, at: UInt64(tail), count: 50) == Array(bytes[tail...]), "randomAccess(\(file)) tail")
        }
    }

    @Test("Files read on several threads at once all read back intact", arguments: AssetBackend.allCases)
    func concurrentReads(_ backend: AssetBackend) throws {
        let fixture = try Fixture(backend)
        let source = try fixture.source()
        let files = Array(FolderTree.androidAssets.files)
        let failures = Counter()
        DispatchQueue.concurrentPerform(iterations: files.count * 4) { index in
            let (file, bytes) = files[index % files.count]
            if (try? source.open(AssetPath(file)).readAll()) != bytes { failures.increment() }
        }
        #expect(failures.value == 0)
    }

    @Test("A folder below assets/ as the root")
    func rootFolder() throws {
        let fixture = try Fixture(.assetManager2)
        let source = try fixture.source(root: "docs/")
        #expect(source.root == "docs")
        #expect(Set(try source.list(.root)) == ["deeper", "readme.txt"])
        #expect(try source.open(try AssetPath("deeper/notes.txt")).readAll() == FolderTree.androidAssets.files["docs/deeper/notes.txt"])
        #expect(notFound { try source.open(try AssetPath("a.txt")) })
    }

    @Test("Without a manifest and without the APK path the tree is unknown: refused")
    func refusesWithoutManifestOrAPK() throws {
        let fixture = try Fixture(.assetManager2)
        let error = #expect(throws: AssetPackError.self) { try NDKAssetSource(manager: fixture.host.manager, apkPath: nil) }
        #expect(error?.code == .invalidArgument)
    }

    @Test("A damaged stored asset fails its CRC-32 check instead of ending", arguments: AssetBackend.allCases)
    func damagedDataIsCaught(_ backend: AssetBackend) throws {
        let fixture = try Fixture(backend)
        let entry = try fixture.apk.requireEntry(named: "assets/data/level1.bin")
        let range = try fixture.apk.dataRange(of: entry)
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: fixture.host.apk))
        try handle.seek(toOffset: range.lowerBound + 1_000)
        let original = try #require(try handle.read(upToCount: 1))
        try handle.seek(toOffset: range.lowerBound + 1_000)
        try handle.write(contentsOf: Data([original[0] ^ 0xFF]))
        try handle.close()
        let error = #expect(throws: ZipError.self) { try fixture.source().open(try AssetPath("data/level1.bin")).readAll() }
        #expect(error?.code == .verification, "\(String(describing: error))")
    }
}

/// The name of `path` when it lies directly inside `folder` ("" for the top).
private func child(_ path: String, of folder: String) -> String? {
    let prefix = folder.isEmpty ? "" : folder + "/"
    guard path.hasPrefix(prefix) else { return nil }
    let rest = path.dropFirst(prefix.count)
    return rest.isEmpty || rest.contains("/") ? nil : String(rest)
}

/// Up to `count` bytes of `source` at `offset`.
private func readRange(_ source: any RandomAccessSource, at offset: UInt64, count: Int) throws -> [UInt8] {
    var buffer = [UInt8](repeating: 0, count: count)
    let got = try buffer.withUnsafeMutableBytes { (raw) throws(ZipError) -> Int in try source.read(into: raw, at: offset) }
    return Array(buffer[0..<got])
}

/// A count shared between threads.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func increment() { lock.withLock { count += 1 } }
}
