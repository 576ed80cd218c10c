import AssetPackSystem

/// Finds the files of a plan that the installed tree already holds unchanged: same path, size,
/// permissions and CRC-32 (and SHA-256, when the record and the plan both have one) in the installed
/// record, and still a regular file of that size on disk. When the plan does not know a file's CRC (a plain
/// file of a tree without a manifest), the source file is read once to compute it — reading is cheaper
/// than rewriting. Such files are hard-linked, not rewritten.
struct UpgradeDiff {
    let plan: ExpansionPlan

    /// Unchanged files' CRCs by item index, skipping `excluded` (files already in staging); `previous` is
    /// the installed record's files by path.
    func unchanged(in installed: Descriptor, previous: [String: InstallRecord.File],
                   excluding excluded: Set<Int>) throws(AssetPackError) -> [Int: UInt32] {
        let cursor = DirectoryCursor(root: installed)
        var result: [Int: UInt32] = [:]
        for (position, item) in plan.items.enumerated() where item.kind == .file && !excluded.contains(position) {
            guard let old = previous[item.path.string], let oldCRC = old.crc32, old.size == item.size,
                  old.mode == item.permissions, old.sha256 == nil || item.digest == nil || old.sha256.flatMap(SHA256Digest.init(hex:)) == item.digest,
                  try sameCRC(item, oldCRC),
                  let folder = cursor.existingParent(ofPath: item.path.string), let status = try io(folder.status(item.path.name)),
                  status.kind == .file, status.size == item.size else { continue }
            result[position] = oldCRC
        }
        return result
    }

    private func sameCRC(_ item: ExpansionItem, _ installed: UInt32) throws(AssetPackError) -> Bool {
        if let crc = item.crc32 { return crc == installed }
        let (stream, origin) = try ItemSource.open(item, in: plan.source)
        return try StreamMeasure.measure(stream, name: origin.description).crc32 == installed
    }
}
