import AssetPack
import AssetPackZip
import Foundation
import Testing

/// Where a hostile archive sits when it is expanded.
package enum Placement: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// `tree/pack.zip` in a folder source: unzipped by the planner into `tree/`.
    case inTree = "inside a tree"
    /// The archive is the source (`assetpack expand hostile.zip`).
    case asSource = "as the source"

    package var testDescription: String { rawValue }
}

/// A scratch folder with a destination that already holds a complete previous version, and the checks
/// every refused input must pass: the error, the previous tree intact, the destination's parent folder
/// listing exactly as before (no staging tree, no temporary), and nothing outside the scratch folder.
///
/// Layout: `previous/` (the source of the previous version), `tree/` or `hostile.zip` (the hostile input),
/// `out/assets` (the destination), `outside/` (an empty folder that links and names try to reach).
package final class HostileStage: @unchecked Sendable {
    package let scratch: TemporaryDirectory
    package let destination: String
    package let outside: String
    /// Everything below the destination's parent folder once the previous version is in place.
    package let parentListing: Set<String>

    /// The previous version every refused expansion must leave as it was.
    package static let previous = AssetTree(files: ["keep.txt": Array("the previous version\n".utf8),
                                            "d/old.bin": Array(repeating: 7, count: 3_000)])

    package init(_ label: String) throws {
        scratch = try TemporaryDirectory(label)
        destination = scratch.file("out/assets")
        outside = scratch.file("outside")
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        try Self.previous.write(to: scratch.file("previous"))
        try AssetInstaller(source: DirectorySource(root: scratch.file("previous")), destination: destination).installSynchronously()
        parentListing = Self.allNames(scratch.file("out"))
    }

    /// The path an archive gets for `placement`, and the name errors must use for it.
    package func archivePath(_ placement: Placement) -> (path: String, shown: String) {
        switch placement {
        case .inTree: (scratch.file("tree/pack.zip"), "pack.zip")
        case .asSource: (scratch.file("hostile.zip"), scratch.file("hostile.zip"))
        }
    }

    /// The source that expands the archive at ``archivePath(_:)``.
    package func source(_ placement: Placement, limits: ZipLimits = .default) throws -> any AssetSource {
        switch placement {
        case .inTree: DirectorySource(root: scratch.file("tree"))
        case .asSource: try ZipAssetSource(path: archivePath(placement).path, limits: limits)
        }
    }

    /// Writes `bytes` as the archive for `placement` and expands it; returns the error it must throw.
    package func refuse(_ bytes: [UInt8], _ placement: Placement, options: ExpansionOptions = ExpansionOptions(jobs: 1),
                sourceLocation: SourceLocation = #_sourceLocation) throws -> AssetPackError? {
        let path = archivePath(placement).path
        try makeParent(path)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return refuse(placement, options: options, sourceLocation: sourceLocation)
    }

    /// Expands what is already at ``archivePath(_:)``; returns the error it must throw.
    package func refuse(_ placement: Placement, options: ExpansionOptions = ExpansionOptions(jobs: 1),
                sourceLocation: SourceLocation = #_sourceLocation) -> AssetPackError? {
        do {
            let source = try self.source(placement, limits: options.limits)
            try AssetInstaller(source: source, destination: destination, options: options).installSynchronously()
            Issue.record("expected an error, but the expansion succeeded", sourceLocation: sourceLocation)
            return nil
        } catch let error as AssetPackError {
            return error
        } catch {
            Issue.record("expected an AssetPackError, got \(error)", sourceLocation: sourceLocation)
            return nil
        }
    }

    /// Expands what is at ``archivePath(_:)``, which must succeed; returns what landed on disk.
    package func accept(_ placement: Placement, options: ExpansionOptions = ExpansionOptions(jobs: 1)) throws -> DiskTree? {
        let source = try self.source(placement, limits: options.limits)
        try AssetInstaller(source: source, destination: destination, options: options).installSynchronously()
        return DiskTree.read(destination)
    }

    /// The rule for every refusal: the destination still holds the previous version exactly, and no file
    /// listed in `absent`; the destination's parent folder lists exactly as before (a refused input leaves
    /// no staging tree, no temporary, nothing: see `FailureCleanup`); the outside folder is empty; the
    /// scratch folder holds nothing new.
    package func expectIntact(absent: [String] = [], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(DiskTree.read(destination) == DiskTree(Self.previous), "the previous tree changed", sourceLocation: sourceLocation)
        expectParentUnchanged(sourceLocation: sourceLocation)
        for path in absent {
            #expect(!FileManager.default.fileExists(atPath: destination + "/" + path), sourceLocation: sourceLocation)
        }
        #expect(folderNames(outside) == [], "something was written outside", sourceLocation: sourceLocation)
        let top = Set(folderNames(scratch.path))
        #expect(top.isSubset(of: ["previous", "out", "outside", "tree", "hostile.zip"]), "\(top.sorted())",
                sourceLocation: sourceLocation)
    }

    /// Checks that everything below the destination's parent folder is listed exactly as after ``init(_:)``.
    package func expectParentUnchanged(sourceLocation: SourceLocation = #_sourceLocation) {
        let now = Self.allNames(scratch.file("out"))
        let added = now.subtracting(parentListing).sorted(), removed = parentListing.subtracting(now).sorted()
        #expect(now == parentListing, "beside the destination: added \(added), removed \(removed)", sourceLocation: sourceLocation)
    }

    /// Every path below `root` (files, folders, links), relative, without following links.
    package static func allNames(_ root: String) -> Set<String> {
        guard let enumerator = FileManager.default.enumerator(atPath: root) else { return [] }
        var names: Set<String> = []
        while let path = enumerator.nextObject() as? String { names.insert(path) }
        return names
    }
}

/// Checks that `error` has `code` and that its one-line description names every string in `mentions`.
package func expectError(_ error: AssetPackError?, _ code: AssetPackError.Code, mentions: [String],
                 sourceLocation: SourceLocation = #_sourceLocation) {
    guard let error else { return }
    #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
    for text in mentions {
        #expect(error.description.contains(text), "\"\(error)\" does not mention \(text)", sourceLocation: sourceLocation)
    }
    #expect(!error.description.contains("\n"), "the description is not one line", sourceLocation: sourceLocation)
}

/// A zip archive of one stored entry per (name, bytes), as raw bytes.
package func rawZip(_ entries: [RawZip.Entry], comment: [UInt8] = []) -> [UInt8] {
    RawZip(entries, comment: comment).bytes
}

/// True when this process may mount file systems (root, and `mount -t tmpfs` works here).
package let canMount: Bool = {
    guard getuid() == 0, let folder = try? TemporaryDirectory("mount-probe") else { return false }
    let mounted = (try? run("/bin/mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", folder.path]))?.status == 0
    if mounted { _ = try? run("/bin/umount", [folder.path]) }
    return mounted
}()

/// A small tmpfs mounted on a fresh folder, unmounted when released.
package final class SmallFileSystem: @unchecked Sendable {
    package let folder: TemporaryDirectory
    package var path: String { folder.path }

    package init(_ label: String, size: String) throws {
        folder = try TemporaryDirectory(label)
        let result = try run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(size),mode=0755", "tmpfs", folder.path])
        guard result.status == 0 else { throw MountError.failed(result.stderr) }
    }

    /// Remounts with other options (`ro`, `rw`, `size=…`).
    package func remount(_ options: String) throws {
        let result = try run("/bin/mount", ["-o", "remount,\(options)", folder.path])
        guard result.status == 0 else { throw MountError.failed(result.stderr) }
    }

    deinit { _ = try? run("/bin/umount", ["-l", folder.path]) }

    package enum MountError: Error { case failed(String) }
}
