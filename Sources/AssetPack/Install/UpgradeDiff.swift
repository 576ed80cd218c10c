import AssetPackSystem

/// Finds the files of a plan that the installed tree already holds unchanged: same path, size,
/// permissions and CRC-32 (and SHA-256, when the record and the plan both have one) in the installed
/// record, and still a regular file of that size on disk. When the plan does not know a file's CRC (a plain
/// file of a tree without a manifest), the source file is read once to compute it — reading is cheaper
/// than rewriting. Such files are hard-linked, not rewritten.
///
/// The record lists its files in path order (it is written in the plan's order), so it is read once beside
/// the plan, a file at a time, and only the files that may be kept are held, as 16 bytes each: a table of
/// the record by path would hold a few hundred bytes a file (at 1,000,000 files, most of an upgrade's
/// memory). A record in another order (edited by hand) is read into that table instead.
struct UpgradeDiff {
    let plan: ExpansionPlan

    /// Unchanged files' CRCs by item index, skipping `excluded` (files already in staging) and the paths
    /// `repairing`; empty when `installed` has no readable record.
    func unchanged(in installed: Descriptor, repairing: Set<String>,
                   excluding excluded: Set<Int>) throws(AssetPackError) -> [Int: UInt32] {
        guard let record = InstallRecord.recordFile(of: installed) else { return [:] }
        var candidates: [(position: Int, crc: UInt32)] = []
        var merge = RecordMerge(items: plan.items)
        let header = InstallRecordReader.read(record, limit: InstallRecord.maxRecordSize, eachFile: { file in
            guard let position = merge.position(of: file.path), let crc = file.crc32,
                  !excluded.contains(position), repairing.isEmpty || !repairing.contains(file.path), mayKeep(plan.items[position], file) else { return }
            candidates.append((position, crc))
        }, eachDirectory: { _ in }, eachLink: { _ in })
        guard header != nil else { return [:] }
        guard merge.inOrder else { return try unchangedByTable(in: installed, repairing: repairing, excluding: excluded) }
        let cursor = DirectoryCursor(root: installed)
        var result: [Int: UInt32] = [:]
        for (position, crc) in candidates where try isStillThere(plan.items[position], crc, in: cursor) { result[position] = crc }
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
            guard let old = previous[item.path.string], let crc = old.crc32, mayKeep(item, old),
                  try isStillThere(item, crc, in: cursor) else { continue }
            result[position] = crc
        }
        return result
    }

    /// True when the record's `old` says what the plan says of `item`: a file of the same size and
    /// permissions, with a CRC-32, and the same SHA-256 when both have one.
    private func mayKeep(_ item: ExpansionItem, _ old: InstallRecord.File) -> Bool {
        item.kind == .file && old.crc32 != nil && old.size == item.size && old.mode == item.permissions
            && (old.sha256 == nil || item.digest == nil || old.sha256.flatMap(SHA256Digest.init(hex:)) == item.digest)
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

/// Walks a plan's items (in path order) beside a record's files as they are read, finding each file's
/// item without a table; notes when the record is not in path order, after which it finds nothing.
struct RecordMerge {
    let items: [ExpansionItem]
    /// The next item that may match.
    private var next = 0
    /// The record's last path so far.
    private var last: String?
    /// False once a record path did not come after the one before it (a path listed twice is skipped:
    /// the first counts, as in the table).
    private(set) var inOrder = true

    init(items: [ExpansionItem]) { self.items = items }

    /// The position of the item at `path`, or nil when the plan has none (or the record is out of order).
    mutating func position(of path: String) -> Int? {
        guard inOrder else { return nil }
        var path = path, previous = last
        if var previous {
            let isAfter = previous.withUTF8 { before in path.withUTF8 { AssetPath.precedes(before, $0) } }
            if !isAfter {
                inOrder = previous.withUTF8 { before in path.withUTF8 { before.elementsEqual($0) } }
                return nil
            }
        }
        last = path
        return path.withUTF8 { bytes -> Int? in
            while next < items.count, items[next].path.withUTF8({ AssetPath.precedes($0, bytes) }) { next += 1 }
            guard next < items.count, items[next].path.withUTF8({ $0.elementsEqual(bytes) }) else { return nil }
            return next
        }
    }
}
