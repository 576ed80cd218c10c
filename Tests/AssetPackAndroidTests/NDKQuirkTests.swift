import AssetPack
import AssetPackAndroid
import CAndroidAssets
import Foundation
import Testing
import TestSupport

/// The NDK's asset API has no "is this a folder?", and Android's code has quirks around folders. Each
/// test first shows the quirk on Android's own AssetManager (the raw C calls, on both backends: the
/// NDK of Android 9+ and the legacy one of Android 8.1 and older), then that ``NDKAssetSource`` and the
/// list/open walker over it are not fooled. The APK has a directory entry for every folder (as `zip -r`
/// writes), which is where the quirks show.
@Suite(AndroidHost.needed)
struct NDKQuirkTests {
    /// The APK of ``DirectoryEntryAPK`` opened with one backend, and the source over it.
    final class Fixture {
        let scratch: TemporaryDirectory
        let host: HostAssetManager
        let source: NDKAssetSource
        var manager: NDKAssetManager { host.manager }

        init(_ backend: AssetBackend) throws {
            try AndroidHost.require()
            scratch = try TemporaryDirectory("ndk-quirks")
            try DirectoryEntryAPK.write(to: scratch.file("dirs.apk"))
            host = try HostAssetManager(apk: scratch.file("dirs.apk"), backend: backend)
            source = try NDKAssetSource(manager: host.manager, apkPath: host.apk)
        }
    }

    @Test("AAssetDir lists files only, so the source lists folders from the central directory", arguments: AssetBackend.allCases)
    func foldersAreNeverListedByTheNDK(_ backend: AssetBackend) throws {
        let fixture = try Fixture(backend)
        #expect(rawFileNames(fixture.manager, "").filter { !$0.isEmpty } == ["deflated.txt"])
        #expect(Set(rawFileNames(fixture.manager, "dir").filter { !$0.isEmpty }) == ["stored.bin", "x.txt"])
        #expect(fixture.source.listing == .centralDirectory(apk: fixture.host.apk))
        #expect(Set(try fixture.source.list(.root)) == ["deflated.txt", "dir", "empty", "データ"])
        #expect(Set(try fixture.source.list(try AssetPath("dir"))) == ["stored.bin", "sub", "x.txt"])
    }

    @Test("Empty names are skipped (the legacy AssetManager lists a phantom \"\")", arguments: AssetBackend.allCases)
    func emptyNamesAreSkipped(_ backend: AssetBackend) throws {
        let fixture = try Fixture(backend)
        // The quirk: a folder's own directory entry ("assets/dir/") is listed as a file named "".
        #expect(rawFileNames(fixture.manager, "dir").contains("") == (backend == .legacy))
        #expect(rawFileNames(fixture.manager, "").contains("") == (backend == .legacy))
        #expect(!fixture.manager.fileNames(in: "dir").contains(""))
        for folder in [""] + DirectoryEntryAPK.tree.folders.sorted() {
            #expect(!(try fixture.source.list(try AssetPath(folder))).contains(""), "list(\(folder))")
        }
        #expect(try AssetWalker(fixture.source).walk() == walkedItems(DirectoryEntryAPK.tree))
    }

    @Test("A name with a trailing slash is never opened: \"dir/\" opens as a 0-byte asset", arguments: AssetBackend.allCases)
    func trailingSlashNamesAreNeverOpened(_ backend: AssetBackend) throws {
        let fixture = try Fixture(backend)
        #expect(rawLength(fixture.manager, "empty/") == 0)
        #expect(rawLength(fixture.manager, "dir/") == 0)
        #expect(fixture.manager.open("empty/") == nil)
        #expect(fixture.manager.open("dir/") == nil)
        let empty = try AssetPath("empty/")  // AssetPath drops the slash: the source asks for "empty"
        #expect(throws: AssetPackError.self) { try fixture.source.open(empty) }
        let walked = try AssetWalker(fixture.source).walk()
        #expect(walked.first { $0.path == empty }?.kind == .directory)
    }

    @Test("A missing folder and an empty one list the same", arguments: AssetBackend.allCases)
    func missingAndEmptyFoldersListTheSame(_ backend: AssetBackend) throws {
        let fixture = try Fixture(backend)
        #expect(fixture.manager.fileNames(in: "empty") == [])
        #expect(fixture.manager.fileNames(in: "missing") == [])
        // Raw, the legacy AssetManager lists the empty folder's own entry as "": only skipping it makes them equal.
        #expect(rawFileNames(fixture.manager, "empty") == (backend == .legacy ? [""] : []))
        let empty = try AssetPath("empty"), missing = try AssetPath("missing")
        #expect(try fixture.source.list(empty) == [])
        #expect(try fixture.source.list(missing) == [])
        #expect(notFound { try fixture.source.open(empty) })
        #expect(notFound { try fixture.source.open(missing) })
        let walked = try AssetWalker(fixture.source).walk()
        #expect(walked.first { $0.path == empty }?.kind == .directory)
        #expect(!walked.contains { $0.path == missing })
    }

    @Test("Opening a folder fails", arguments: AssetBackend.allCases)
    func openingAFolderFails(_ backend: AssetBackend) throws {
        let fixture = try Fixture(backend)
        #expect(rawLength(fixture.manager, "dir") == nil)
        #expect(rawLength(fixture.manager, "empty") == nil)
        for folder in ["dir", "dir/sub", "empty"] {
            let path = try AssetPath(folder)
            #expect(notFound { try fixture.source.open(path) }, "open(\(folder))")
            #expect(notFound { try fixture.source.randomAccess(path) }, "randomAccess(\(folder))")
            #expect(try fixture.source.size(of: path) == nil, "size(of: \(folder))")
        }
    }

    @Test("open(\"\") of an APK with an assets/ entry gives a 0-byte asset, never taken for a file", arguments: AssetBackend.allCases)
    func zeroByteFolderAssetsAreNotFiles(_ backend: AssetBackend) throws {
        let fixture = try Fixture(backend)
        #expect(rawLength(fixture.manager, "") == (backend == .assetManager2 ? 0 : nil))
        #expect(fixture.manager.open("") == nil)
        #expect(notFound { try fixture.source.open(.root) })
        #expect(try AssetWalker(fixture.source).walk() == walkedItems(DirectoryEntryAPK.tree))
        let (_, expanded) = try install(fixture.source, into: fixture.scratch, as: "out")
        #expect(expanded == DirectoryEntryAPK.tree, "\(expanded.differences(from: DirectoryEntryAPK.tree))")
    }

    @Test("A leading slash never reaches the NDK (the legacy AssetManager lists the APK's top for \"/\")",
          arguments: AssetBackend.allCases)
    func leadingSlashNeverLeavesAssets(_ backend: AssetBackend) throws {
        let fixture = try Fixture(backend)
        #expect(rawFileNames(fixture.manager, "/").contains("AndroidManifest.xml") == (backend == .legacy))
        #expect(fixture.manager.fileNames(in: "/") == [])
        #expect(fixture.manager.open("/dir/x.txt") == nil)
    }
}

/// What `AAssetDir_getNextFileName` returns for `directory`, unfiltered.
func rawFileNames(_ manager: NDKAssetManager, _ directory: String) -> [String] {
    guard let dir = AAssetManager_openDir(manager.pointer, directory) else { return [] }
    defer { AAssetDir_close(dir) }
    var names: [String] = []
    while let name = AAssetDir_getNextFileName(dir) { names.append(String(cString: name)) }
    return names
}

/// The length of what `AAssetManager_open(name)` opens, or nil when it opens nothing.
func rawLength(_ manager: NDKAssetManager, _ name: String) -> Int64? {
    guard let asset = AAssetManager_open(manager.pointer, name, Int32(AASSET_MODE_STREAMING)) else { return nil }
    defer { AAsset_close(asset) }
    return AAsset_getLength64(asset)
}

/// True when `body` throws an ``AssetPackError`` with code `.notFound`.
func notFound(_ body: () throws -> Any?) -> Bool {
    do {
        _ = try body()
        return false
    } catch let error as AssetPackError {
        return error.code == .notFound
    } catch {
        return false
    }
}

/// The items a walk of `tree` must find, in walk order.
func walkedItems(_ tree: FolderTree) throws -> [WalkedItem] {
    let files = try tree.files.keys.map { WalkedItem(path: try AssetPath($0), kind: .file) }
    let folders = try tree.folders.map { WalkedItem(path: try AssetPath($0), kind: .directory) }
    return (files + folders).sorted()
}
