/// The paths of a plan by their folded form (``PlanBuilder/foldedKey(_:)``: lowercased, in Unicode
/// canonical composition), each kept as its item's position, so that two names that would land on one
/// file of a case-insensitive, normalizing file system are found without a string per key.
///
/// An open-addressing table with linear probing, at most half full. A slot holds 32 bits of the folded
/// key's hash (seeded per process, as Swift's `Hasher` is, so that an archive cannot be built to make
/// every name collide), a bit for a path that is not ASCII, and the position plus one (0 is empty). An
/// ASCII path is folded byte by byte without a copy; any other's folded key is made once and kept.
struct FoldedNames {
    /// What ``find(_:in:)`` found: the position of the item whose path folds alike, or where to insert.
    enum Lookup {
        case found(Int)
        case absent(Slot)
    }

    /// Where an absent path goes, valid until the table next changes.
    struct Slot {
        fileprivate let index: Int
        fileprivate let entry: UInt64
    }

    private var slots = [UInt64](repeating: 0, count: 16)
    private var count = 0
    /// The folded keys of the paths that are not ASCII, by position.
    private var foldedKeys: [Int: [UInt8]] = [:]
    /// The folded bytes of the path looked up last (reused: no allocation per lookup).
    private var key: [UInt8] = []

    private static let notASCII: UInt64 = 1 << 31
    private static let positionMask: UInt64 = notASCII - 1

    /// Makes room for `count` paths without regrowing.
    mutating func reserve(_ count: Int) {
        if count * 2 > slots.count { rehash(capacity: Self.capacity(for: count)) }
    }

    /// The position of the item of `items` whose path folds as `path` does, or the slot for it.
    /// - Complexity: O(*n*) in the length of the path, on average.
    mutating func find(_ path: AssetPath, in items: [ExpansionItem]) -> Lookup {
        let ascii = fold(path)
        var hasher = Hasher()
        key.withUnsafeBytes { hasher.combine(bytes: $0) }
        let tag = UInt64(UInt32(truncatingIfNeeded: hasher.finalize()))
        let mask = slots.count - 1
        var index = Int(tag) & mask
        while slots[index] != 0 {
            let entry = slots[index]
            let position = Int(entry & Self.positionMask) - 1
            if entry >> 32 == tag && sameKey(at: position, notASCII: entry & Self.notASCII != 0, in: items) {
                return .found(position)
            }
            index = (index + 1) & mask
        }
        return .absent(Slot(index: index, entry: tag << 32 | (ascii ? 0 : Self.notASCII)))
    }

    /// Records that the path last looked up, absent at `slot`, is the item at `position`.
    mutating func insert(_ slot: Slot, position: Int) {
        precondition(UInt64(position) < Self.positionMask, "more items than a plan holds")
        slots[slot.index] = slot.entry | UInt64(position + 1)
        if slot.entry & Self.notASCII != 0 { foldedKeys[position] = key }
        count += 1
        if count * 2 > slots.count { rehash(capacity: slots.count * 2) }
    }

    /// Puts the folded bytes of `path` in ``key``; true when the path is ASCII (folded byte by byte).
    private mutating func fold(_ path: AssetPath) -> Bool {
        key.removeAll(keepingCapacity: true)
        path.withUTF8 { key.append(contentsOf: $0) }
        let ascii = key.withUnsafeMutableBufferPointer { bytes in
            var high: UInt8 = 0
            for index in bytes.indices {
                high |= bytes[index]
                bytes[index] = FoldedNames.lowered(bytes[index])
            }
            return high < 0x80
        }
        if !ascii { key = Array(PlanBuilder.foldedKey(path).utf8) }
        return ascii
    }

    /// True when the item at `position` folds to ``key``.
    private func sameKey(at position: Int, notASCII: Bool, in items: [ExpansionItem]) -> Bool {
        if notASCII { return foldedKeys[position] == key }
        return items[position].path.withUTF8 { candidate in
            key.withUnsafeBufferPointer { wanted in
                candidate.count == wanted.count && !zip(candidate, wanted).contains { FoldedNames.lowered($0) != $1 }
            }
        }
    }

    /// Calls `body` with the folded bytes of the single component `name`: ASCII lowered byte by byte, any
    /// other name as ``PlanBuilder/foldedKey(_:)`` folds it.
    static func foldName(_ name: String, _ body: (UnsafeRawBufferPointer) -> Void) {
        var name = name
        let ascii = name.withUTF8 { bytes in !bytes.contains { $0 >= 0x80 } }
        guard ascii else { return Array(PlanBuilder.foldedKey(AssetPath(validated: name)).utf8).withUnsafeBytes(body) }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: name.utf8.count) { folded in
            name.withUTF8 { bytes in
                for index in bytes.indices { folded[index] = lowered(bytes[index]) }
            }
            body(UnsafeRawBufferPointer(folded))
        }
    }

    private static func lowered(_ byte: UInt8) -> UInt8 {
        byte &- UInt8(ascii: "A") < 26 ? byte | 0x20 : byte
    }

    private static func capacity(for count: Int) -> Int {
        var capacity = 16
        while capacity < count * 2 { capacity *= 2 }
        return capacity
    }

    private mutating func rehash(capacity: Int) {
        var grown = [UInt64](repeating: 0, count: capacity)
        let mask = capacity - 1
        for entry in slots where entry != 0 {
            var index = Int(entry >> 32) & mask
            while grown[index] != 0 { index = (index + 1) & mask }
            grown[index] = entry
        }
        slots = grown
    }
}
