import AssetPackZip

/// Reads a packed bundle in full and checks it against its manifest, as `assetpack verify BUNDLE` does:
/// every file the manifest lists, plain or packed, is read where the manifest says it is stored and checked
/// against the manifest's size and CRC-32 (a `VerifyingStream`, as ``PackedBundleSource`` hands out), then
/// every packing archive is read entry by entry with `ZipArchive/verify()` (each entry's size and CRC-32
/// against the archive's own headers), entries the manifest does not name included. A file whose manifest
/// entry has a SHA-256 is hashed as it is read and must match it. Last, the patches the manifest lists are read
/// (`PatchVerification`). The first failure is thrown, naming the file.
///
/// The manifest is planned as the expander plans it (`ManifestPlanner`, a window at a time), so its entry
/// list is never held whole, and each packing archive's entries are held only while it is read.
///
/// - Complexity: reads every byte of the bundle's files once, and every packed entry once more.
public enum BundleVerification {
    /// What a verification read. Encoded, its stored fields by name (what `assetpack verify --json` prints).
    public struct Summary: Sendable, Equatable, Encodable {
        /// Where the manifest was (`assetpack-meta/manifest.json`).
        public var manifest: String
        /// Files checked against the manifest.
        public var files: Int
        /// Their bytes (uncompressed).
        public var bytes: UInt64
        /// Packing archives read in full.
        public var archives: Int
        /// Entries of those archives checked.
        public var archiveEntries: Int
        /// Patches checked (`BundleManifest.Storage.patches`: each inflates to instructions that fit its chunks).
        public var patches: Int = 0
    }

    /// Verifies the bundle `base` (a folder, or a bundle inside an archive).
    /// - Throws: `.notFound` when `base` has no manifest; `.manifest` for a malformed one; `.verification`
    ///   naming the first file whose size or CRC-32 differs from the manifest's; `.manifest` when a file's
    ///   storage is missing; `.archive` for a damaged packing archive.
    public static func verify(_ base: any AssetSource) throws(AssetPackError) -> Summary {
        try verify(base, windowItems: InstallPlanning.windowItems)
    }

    /// ``verify(_:)`` with windows of `windowItems` files (an install's window, `InstallPlanning.windowItems`).
    static func verify(_ base: any AssetSource, windowItems: Int) throws(AssetPackError) -> Summary {
        let resolved = ResolvedSource(base)
        let options = ExpansionOptions(maxTotalBytes: .max)
        let run = Run(base)
        let windows = ManifestPlanner<PlanWindowBuilder>(source: resolved, options: options, windowSize: windowItems) {
            (window) throws(AssetPackError) in try run.verifyFiles(of: window.plan)
        }
        guard var located = try BundleManifest.locate(in: base, into: windows) else {
            throw AssetPackError(.notFound, "no bundle manifest at \(BundleManifest.path)", path: base.name)
        }
        if windows.needsWholePlan {
            // Names to compare across windows: planned whole.
            run.restart()
            let planner = ManifestPlanner<PlanBuilder>(source: resolved, options: options) {
                (window) throws(AssetPackError) in try run.verifyFiles(of: window.plan)
            }
            guard let again = try BundleManifest.locate(in: base, into: planner) else {
                throw AssetPackError(.notFound, "the manifest disappeared while it was read", path: base.name)
            }
            located = again
            try planner.finish()
        } else {
            try windows.finish()
        }
        var summary = try run.verifyArchives(manifest: located.path)
        summary.patches = try PatchVerification.verify(base)
        return summary
    }

    /// One verification's progress: the files read so far and the packing archives they came from.
    private final class Run {
        let base: any AssetSource
        var files = 0
        var bytes: UInt64 = 0
        /// The packing archives met, each once, and the one the last file came from.
        var archives: [ObjectIdentifier: ArchiveHandle] = [:]
        var current: ArchiveHandle?

        init(_ base: any AssetSource) { self.base = base }

        func restart() {
            current?.release()
            (files, bytes, archives, current) = (0, 0, [:], nil)
        }

        /// Reads and checks every file of `plan`, a window or the whole bundle.
        func verifyFiles(of plan: ExpansionPlan) throws(AssetPackError) {
            for item in plan.items where item.kind == .file {
                let handle = BundleVerification.packingArchive(of: item)
                if let current, current !== handle { current.release() }  // its entries go; opened again if needed
                current = handle
                if let handle { archives[ObjectIdentifier(handle)] = handle }
                let stream = try BundleVerification.open(item, of: plan, in: base)
                bytes += try BundleVerification.drain(stream, name: "\(base.name): \(item.path)", sha256: item.digest)
                files += 1
            }
        }

        /// Reads every packing archive met entry by entry, one at a time; the summary of the whole verification.
        func verifyArchives(manifest: String) throws(AssetPackError) -> Summary {
            current?.release()
            var summary = Summary(manifest: manifest, files: files, bytes: bytes, archives: 0, archiveEntries: 0)
            for handle in archives.values.sorted(by: { $0.displayName < $1.displayName }) {
                let archive = try handle.archive()
                do {
                    try archive.verify()
                } catch {
                    throw AssetPackError(error.inArchive("\(base.name): \(handle.displayName)"))
                }
                summary.archives += 1
                summary.archiveEntries += archive.entries.count { $0.kind != .directory }
                handle.release()
            }
            return summary
        }
    }

    /// The packing archive `item` is read from, if any.
    private static func packingArchive(of item: ExpansionItem) -> ArchiveHandle? {
        if case .zipEntry(let handle, _) = item.origin { return handle }
        return nil
    }

    /// The bytes of `item` where the manifest stores them, checked against the manifest's size and CRC-32
    /// before the end is reported. A stored file the bundle lacks is the manifest's fault (`.manifest`).
    private static func open(_ item: ExpansionItem, of plan: ExpansionPlan, in base: any AssetSource) throws(AssetPackError) -> any ByteStream {
        let name = "\(base.name): \(item.path)"
        let raw: any ByteStream
        do {
            raw = try ItemSource.open(item, in: plan.source).0
        } catch where error.code == .notFound {
            let stored: String
            switch item.origin {
            case .localFile(let path), .stream(let path): stored = path.string
            case .zipEntry(let handle, _): stored = handle.displayName
            default: throw error
            }
            throw AssetPackError(.manifest, "the manifest stores it at \"\(stored)\", which the bundle lacks", path: name)
        }
        return VerifyingStream(raw, expectedSize: item.size, expectedCRC: item.crc32 ?? 0, name: name)
    }

    /// Reads `stream` to its end (where it checks itself) and checks the bytes against `sha256` when the
    /// manifest records one; returns the bytes read.
    private static func drain(_ stream: any ByteStream, name: String, sha256: SHA256Digest?) throws(AssetPackError) -> UInt64 {
        var total: UInt64 = 0
        var hash = SHA256()
        try stream.forEachPiece(name: name) { piece in
            if sha256 != nil { hash.update(piece) }
            total += UInt64(piece.count)
        }
        if let sha256 {
            let found = hash.finalizeHex()
            guard found == sha256.hex else {
                throw AssetPackError(.verification, "has SHA-256 \(found), the manifest records \(sha256.hex)", path: name)
            }
        }
        return total
    }
}
