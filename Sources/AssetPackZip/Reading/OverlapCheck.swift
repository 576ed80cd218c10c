/// Rejects archives whose entries claim the same bytes (the "better zip bomb" of overlapping files) and
/// gives each entry the first offset it may not read past: the next local header, or the central directory.
enum OverlapCheck {
    /// Sets each entry's ``ZipEntry/dataLimit`` in place (no entry is copied: each copy would retain its name).
    static func assignDataLimits(_ entries: inout [ZipEntry], directoryOffset: UInt64, archive: String) throws(ZipError) {
        // Most archives list their entries in the order of their data: then no sorting is needed.
        let inOrder = entries.indices.dropFirst().allSatisfy { entries[$0 - 1].localHeaderOffset < entries[$0].localHeaderOffset }
        let order = inOrder ? Array(entries.indices)
            : entries.indices.sorted { entries[$0].localHeaderOffset < entries[$1].localHeaderOffset }
        for (rank, position) in order.enumerated() {
            let offset = entries[position].localHeaderOffset
            var limit = directoryOffset
            if rank + 1 < order.count {
                let next = order[rank + 1]
                if entries[next].localHeaderOffset == offset {
                    throw ZipError(.overlap, "entries \"\(entries[position].name)\" and \"\(entries[next].name)\" share one local header",
                                   archive: archive, entry: entries[next].name, offset: offset)
                }
                limit = entries[next].localHeaderOffset
            }
            let minimumEnd = offset + UInt64(FormatLimit.localHeaderSize) + entries[position].compressedSize
            guard minimumEnd <= limit else {
                throw ZipError(.overlap, "data of \(entries[position].compressedSize) bytes overlaps the next entry or the central directory",
                               archive: archive, entry: entries[position].name, offset: offset)
            }
            entries[position].dataLimit = limit
        }
    }
}
