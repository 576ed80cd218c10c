import AssetPackSystem

/// Finds the files of a plan that the installed tree already holds unchanged: same path, size,
/// permissions and CRC-32 (and SHA-256, when the record and the plan both have one) in the installed
/// record, and still a regular file of that size on disk. When the plan does not know a file's CRC (a plain
/// file of a tree without a manifest), the source file is read once to compute it — reading is cheaper
/// than rewriting. Such files are hard-linked, not rewritten.
///
/// The record lists its files in path order (it is written in the plan's order), so it is read once into
/// flat arrays (``RecordedFiles``, about 50 bytes a file) and walked beside the plan with one cursor: a
/// table of the record by path would hold several hundred bytes a file (at 1,000,000 files, most of an
/// upgrade's memory). A windowed upgrade walks it beside each window in turn. A record in another order
/// (edited by hand) is read into that table instead.
struct UpgradeDiff {
    let plan: ExpansionPlan

    /// Unchanged files' CRCs by item index, skipping `excluded` (files already in staging) and the paths
    /// `repairing`; empty when `installed` has no readable record.
    func unchanged(in installed: Descriptor, repairing: Set<String>,
                   excluding excluded: Set<Int>) throws(AssetPackError) -> [Int: UInt32] {
        guard let recorded = RecordedFiles.read(of: installed) else {
            return try unchangedByTable(in: installed, repairing: repairing, excluding: excluded)
        }
        var cursor = 0
        return try unchanged(in: installed, recorded: recorded, from: &cursor, repairing: repairing, excluding: excluded)
    }

    /// Unchanged files' CRCs by item index, the record `recorded` of `installed` walked from `cursor` (left
    /// past this plan's last path, for the next window's plan).
    func unchanged(in installed: Descriptor, recorded: RecordedFiles, from cursor: inout Int, repairing: Set<String> = [],
                   excluding excluded: Set<Int> = []) throws(AssetPackError) -> [Int: UInt32] {
        let folders = DirectoryCursor(root: installed)
        var result: [Int: UInt32] = [:]
        for (position, item) in plan.items.enumerated() where item.kind == .file {
            let found = item.path.withUTF8 { path -> Bool in
                while cursor < recorded.count, recorded.withPath(cursor, { AssetPath.precedes($0, path) }) { cursor += 1 }
                return cursor < recorded.count && recorded.withPath(cursor) { $0.elementsEqual(path) }
            }
            guard found, !excluded.contains(position), repairing.isEmpty || !repairing.contains(item.path.string) else { continue }
            let old = recorded[cursor]
            guard mayKeep(item, size: old.size, mode: old.mode, sha256: old.sha256),
                  try isStillThere(item, old.crc32, in: folders) else { continue }
            result[position] = old.crc32
        }
        return result
    }

    /// ``unchanged(in:repairing:excluding:)`` for a record not in path order: read into a table by path.
    private func unchangedByTable(in installed: Descriptor, repairing: Set<String>,
                                  excluding excluded: Set<Int>) throws(AssetPackError) -> [Int: UInt32] {
        guard var previous = InstallRecord.filesByPath(of: installed) else { return [:] }
        for path in repairing { previous[path] = nil }
        let cursor = DirectoryCursor(root: installed)
        var result: [Int: UInt32] = [:]
        for (position, item) in plan.items.enumerated() where item.kind == .file && !excluded.contains(position) {
            guard let old = previous[item.path.string], let crc = old.crc32 else { continue }
            let digest = old.sha256.flatMap(SHA256Digest.init(hex:))
            guard (digest == nil) == (old.sha256 == nil),  // a SHA-256 that is not 64 hex digits: never reused
                  mayKeep(item, size: old.size, mode: old.mode, sha256: digest), try isStillThere(item, crc, in: cursor) else { continue }
            result[position] = crc
        }
        return result
    }

    /// True when the record says what the plan says of the file `item`: the same `size` and permissions
    /// (`mode`), and the same SHA-256 when both have one.
    private func mayKeep(_ item: ExpansionItem, size: UInt64, mode: UInt32, sha256: SHA256Digest?) -> Bool {
        size == item.size && mode == item.permissions
            && (sha256 == nil || item.digest == nil || sha256 == item.digest)
    }

    /// True when `item`'s data has the recorded CRC-32 `installed` and the installed tree still holds it as
    /// a regular file of its size.
    private func isStillThere(_ item: ExpansionItem, _ installed: UInt32, in cursor: DirectoryCursor) throws(AssetPackError) -> Bool {
        guard try sameCRC(item, installed), let folder = cursor.existingParent(ofPath: item.path.string),
              let status = try io(folder.status(item.path.name)) else { return false }
        return status.kind == .file && status.size == item.size
    }

    private func sameCRC(_ item: ExpansionItem, _ installed: UInt32) throws(AssetPackError) -> Bool {
        if let crc = item.crc32 { return crc == installed }
        let (stream, origin) = try ItemSource.open(item, in: plan.source)
        return try StreamMeasure.measure(stream, name: origin.description).crc32 == installed
    }
}
