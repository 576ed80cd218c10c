/// The entries of a ``ZipArchive`` one at a time, in central-directory order (``ZipArchive/entries(from:)``):
/// those the archive holds, or, for one too large to hold (``ZipLimits/maxHeldDirectoryBytes``), each read
/// from the central directory as it is asked for and forgotten after, so that going through a million
/// entries holds one.
///
/// ```swift
/// var scanner = archive.entries()
/// while let entry = try scanner.next() { ... }
/// ```
public struct ZipEntryScanner {
    private enum Origin {
        case held([ZipEntry])
        case directory(CentralDirectoryReader, DirectorySummary)
    }

    private var origin: Origin
    private var position: Int

    init(held entries: [ZipEntry], from first: Int) {
        origin = .held(entries)
        position = max(0, first)
    }

    init(reader: CentralDirectoryReader, summary: DirectorySummary, from first: Int) {
        origin = .directory(reader, summary)
        position = max(0, first)
    }

    /// The next entry, or nil after the last.
    /// - Throws: ``ZipError`` when a record can no longer be read (the archive changed since it was
    ///   opened, which checked every record).
    public mutating func next() throws(ZipError) -> ZipEntry? {
        switch origin {
        case .held(let entries):
            guard position < entries.count else { return nil }
            position += 1
            return entries[position - 1]
        case .directory(var reader, let summary):
            while true {
                guard var entry = try reader.next() else {
                    origin = .directory(reader, summary)
                    return nil
                }
                guard entry.index >= position else { continue }
                origin = .directory(reader, summary)
                position = entry.index + 1
                entry.dataLimit = summary.dataLimit(of: entry.localHeaderOffset)
                return entry
            }
        }
    }
}
