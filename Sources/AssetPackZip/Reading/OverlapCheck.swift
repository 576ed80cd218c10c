/// Rejects archives whose entries claim the same bytes (the "better zip bomb" of overlapping files) and
/// gives each entry the first offset it may not read past: the next local header, or the central directory.
enum OverlapCheck {
    static func assignDataLimits(_ entries: [ZipEntry], directoryOffset: UInt64, archive: String) throws(ZipError) -> [ZipEntry] {
        // Most archives list their entries in the order of their data: then no sorting is needed.
        let inOrder = zip(entries, entries.dropFirst()).allSatisfy { $0.localHeaderOffset < $1.localHeaderOffset }
        let order = inOrder ? Array(entries.indices)
            : entries.indices.sorted { entries[$0].localHeaderOffset < entries[$1].localHeaderOffset }
        var result = entries
        for (rank, position) in order.enumerated() {
            let entry = entries[position]
            var limit = directoryOffset
            if rank + 1 < order.count {
                let next = entries[order[rank + 1]]
                if next.localHeaderOffset == entry.localHeaderOffset {
                    throw ZipError(.overlap, "entries \"\(entry.name)\" and \"\(next.name)\" share one local header",
                                   archive: archive, entry: next.name, offset: entry.localHeaderOffset)
                }
                limit = next.localHeaderOffset
            }
            let minimumEnd = entry.localHeaderOffset + UInt64(FormatLimit.localHeaderSize) + entry.compressedSize
            guard minimumEnd <= limit else {
                throw ZipError(.overlap, "data of \(entry.compressedSize) bytes overlaps the next entry or the central directory",
                               archive: archive, entry: entry.name, offset: entry.localHeaderOffset)
            }
            result[position] = entry.withDataLimit(limit)
        }
        return result
    }
}
