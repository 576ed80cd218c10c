import AssetPackSystem

/// What an archive whose central directory is too large to hold (``ZipLimits/maxHeldDirectoryBytes``) keeps
/// of it instead of its entries: 8 bytes an entry to find it by name (a hash and its position, plus every
/// ``checkpointInterval``-th record's offset) and 8 for its local header's offset, which bounds the data of
/// the entry before it. It is made in one pass that checks every record as holding the entries does.
struct DirectorySummary: Sendable {
    /// One entry, as found by name.
    private struct NameSlot: Sendable {
        let hash: UInt32
        let position: UInt32
    }

    /// Sorted by hash, then position (the first entry of a name comes first).
    private let names: [NameSlot]
    /// Where the record of entry `k` × ``checkpointInterval`` starts.
    private let checkpoints: [UInt64]
    /// Entries between two checkpoints: a lookup reads at most this many records.
    static let checkpointInterval = 32
    /// Every entry's local header offset, ascending.
    private let headerOffsets: [UInt64]
    /// Where the central directory starts: the limit of the last entry's data.
    let directoryOffset: UInt64

    /// How many entries the directory holds.
    var entryCount: Int { headerOffsets.count }

    /// Goes through the directory at `location` of `source` once.
    /// - Throws: ``ZipError`` as reading the entries would: `.format`, `.truncated`, `.overlap`, `.limitExceeded`.
    static func make(source: any RandomAccessSource, location: CentralDirectoryLocation,
                     limits: ZipLimits) throws(ZipError) -> DirectorySummary {
        var reader = CentralDirectoryReader(source: source, location: location, limits: limits)
        var names: [NameSlot] = [], extents: [(offset: UInt64, compressed: UInt64)] = [], checkpoints: [UInt64] = []
        let expected = Int(min(location.entryCount, location.size / UInt64(FormatLimit.centralHeaderSize)))
        names.reserveCapacity(expected)
        extents.reserveCapacity(expected)
        while let entry = try reader.next() {
            guard let position = UInt32(exactly: entry.index) else {
                throw ZipError(.limitExceeded, "archive has more than \(UInt32.max) entries", archive: source.name)
            }
            names.append(NameSlot(hash: hash(EntryName.withoutLeadingCurrentFolder(entry.name)), position: position))
            if entry.index % checkpointInterval == 0 { checkpoints.append(entry.centralHeaderOffset) }
            extents.append((entry.localHeaderOffset, entry.compressedSize))
        }
        // Most archives list their entries in the order of their data: then no sorting is needed.
        if !extents.indices.dropFirst().allSatisfy({ extents[$0 - 1].offset < extents[$0].offset }) {
            extents.sort { $0.offset < $1.offset }
        }
        for rank in extents.indices {
            let limit = rank + 1 < extents.count ? extents[rank + 1].offset : location.offset
            let minimumEnd = extents[rank].offset + UInt64(FormatLimit.localHeaderSize) + extents[rank].compressed
            if limit == extents[rank].offset || minimumEnd > limit {
                // Read again whole, for the error that names the entries.
                var again = CentralDirectoryReader(source: source, location: location, limits: limits)
                var whole = try again.readEntries()
                try OverlapCheck.assignDataLimits(&whole, directoryOffset: location.offset, archive: source.name)
                throw ZipError(.overlap, "entries overlap", archive: source.name, offset: extents[rank].offset)
            }
        }
        names.sort { ($0.hash, $0.position) < ($1.hash, $1.position) }
        return DirectorySummary(names: names, checkpoints: checkpoints, headerOffsets: extents.map(\.offset),
                                directoryOffset: location.offset)
    }

    /// The first offset the data of the entry whose local header is at `headerOffset` may not reach: the
    /// next local header, or the central directory.
    func dataLimit(of headerOffset: UInt64) -> UInt64 {
        let next = firstIndex(in: headerOffsets.count) { headerOffsets[$0] > headerOffset }
        return next < headerOffsets.count ? headerOffsets[next] : directoryOffset
    }

    /// The positions of the entries whose name may be `name` (without a leading `./`), first entry first.
    func candidates(named name: Substring) -> [Int] {
        let wanted = Self.hash(name)
        var index = firstIndex(in: names.count) { names[$0].hash >= wanted }
        var found: [Int] = []
        while index < names.count, names[index].hash == wanted {
            found.append(Int(names[index].position))
            index += 1
        }
        return found
    }

    /// The checkpoint at or before the entry at `position`: that entry's position and where its record starts.
    func checkpoint(before position: Int) -> (position: Int, recordOffset: UInt64) {
        let slot = position / Self.checkpointInterval
        return (slot * Self.checkpointInterval, checkpoints[slot])
    }

    /// The first index below `count` for which `isPast` holds (it holds for all after it), or `count`.
    private func firstIndex(in count: Int, where isPast: (Int) -> Bool) -> Int {
        var low = 0, high = count
        while low < high {
            let middle = (low + high) / 2
            if isPast(middle) { high = middle } else { low = middle + 1 }
        }
        return low
    }

    /// A name's hash, for this process only.
    private static func hash(_ name: Substring) -> UInt32 {
        var hasher = Hasher()
        let hashed: Void? = name.utf8.withContiguousStorageIfAvailable { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        if hashed == nil { Array(name.utf8).withUnsafeBytes { hasher.combine(bytes: $0) } }
        return UInt32(truncatingIfNeeded: hasher.finalize())
    }
}
