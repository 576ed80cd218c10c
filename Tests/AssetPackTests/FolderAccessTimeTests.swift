import AssetPackSystem
import Foundation
import Testing
import TestSupport

/// Listing a folder of one's own writes nothing (Linux): folders are opened with `O_NOATIME`, so the default
/// `relatime` does not write the folder's inode again for its access time (a walk of a freshly installed tree
/// would otherwise write every folder's inode: the unknown-entry walk of an upgrade, `status`, `verify`).
#if os(Linux)
@Suite struct FolderAccessTimeTests {
    /// The access time of `path` in nanoseconds.
    static func accessTime(_ path: String) -> Int {
        var info = stat()
        _ = lstat(path, &info)
        return info.st_atim.tv_sec * 1_000_000_000 + info.st_atim.tv_nsec
    }

    /// Sets the access time of `path` to 2001 and its modification time to 2017: `relatime` then updates the
    /// access time on the next read.
    static func age(_ path: String) {
        var times = [timespec(tv_sec: 1_000_000_000, tv_nsec: 0), timespec(tv_sec: 1_500_000_000, tv_nsec: 0)]
        _ = utimensat(AT_FDCWD, path, &times, 0)
    }

    @Test func listingAFolderLeavesItsAccessTime() throws {
        let scratch = try TemporaryDirectory("folder-atime")
        for name in ["ours", "control"] {
            try FileManager.default.createDirectory(atPath: scratch.file(name + "/inner"), withIntermediateDirectories: true)
            Self.age(scratch.file(name))
        }
        // A plain listing shows whether this file system updates access times at all.
        _ = try FileManager.default.contentsOfDirectory(atPath: scratch.file("control"))
        let updates = Self.accessTime(scratch.file("control")) != 1_000_000_000 * 1_000_000_000
        let before = Self.accessTime(scratch.file("ours"))
        let names = try Descriptor.directory(scratch.path).directory("ours").names()
        #expect(names.map(\.description) == ["inner"])
        #expect(Self.accessTime(scratch.file("ours")) == before, "the listing wrote the folder's access time")
        if !updates { print("FolderAccessTimeTests: \(scratch.path) is mounted without access-time updates: the control shows nothing") }
    }
}
#endif
