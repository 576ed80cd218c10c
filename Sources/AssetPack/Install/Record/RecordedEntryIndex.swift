import AssetPackSystem
import Foundation

/// What an install record (`installed.json`) expects at each path, in 32 bytes a path: the check of an
/// installed tree (``InstalledTreeCheck``) looks every name it meets up here instead of in a dictionary of
/// the record's paths, which at 1,000,000 files held about 400 MiB. The record is read as a stream
/// (``InstallRecordReader``), never whole.
///
/// A path is kept as two 64-bit hashes (``MurmurHash64A``, 120 bits used) of its bytes in canonical
/// composition (NFC), so that `é` and `e` + combining accent are one path, as two equal Swift strings
/// are; two different paths of one record share a key with a chance of about n² / 2¹²¹ (10⁻²⁴ for a
/// million paths). The record's text is not kept: a problem's words that need it (a missing entry's
/// path, a link's recorded target) come from a second reading of the record (``readAgain(_:)``), made
/// only when something is missing or a link differs.
///
/// Besides the record's files, folders and links, every folder their paths imply is expected (a record
/// of an older version lists no folders). When a path is listed twice, a link wins over a file, a file
/// over a listed folder, a listed folder over an implied one.
final class RecordedEntryIndex {
    /// What the record expects at one path.
    enum Kind: UInt64 {
        /// A folder only implied by the paths below it: any permissions.
        case impliedDirectory = 0
        /// A listed folder, with its permissions.
        case directory = 1
        /// A file: ``Slot/value`` is its size, ``Slot/crc32`` its CRC-32 when recorded.
        case file = 2
        /// A symbolic link: ``Slot/value`` is the hash of its target.
        case link = 3
    }

    /// One path: its key, what is expected there, and whether the walk saw it.
    struct Slot {
        var key0: UInt64
        /// The second hash, its low byte holding the kind, `hasCRC` and `seen`.
        var key1: UInt64
        /// A file's size, a link target's hash.
        var value: UInt64
        var crc32: UInt32
        var mode: UInt32

        var kind: Kind { Kind(rawValue: key1 & 0b11)! }
        var hasCRC: Bool { key1 & Flag.hasCRC != 0 }
        var seen: Bool { key1 & Flag.seen != 0 }
        fileprivate var key: (UInt64, UInt64) { (key0, key1 & ~0xFF) }

        /// Key order, and of one key's slots the lower kind first.
        static func precedes(_ one: Slot, _ other: Slot) -> Bool {
            if one.key0 != other.key0 { return one.key0 < other.key0 }
            let first = one.key1 & ~0xFF, second = other.key1 & ~0xFF
            if first != second { return first < second }
            return one.key1 & 0b11 < other.key1 & 0b11
        }
    }

    private enum Flag {
        static let hasCRC: UInt64 = 1 << 2
        static let seen: UInt64 = 1 << 3
    }

    /// The record's fields and counts other than its entries.
    struct Summary {
        /// Files and symlinks the record lists (a path listed twice counts twice), and the files' bytes.
        var files = 0
        var bytes: UInt64 = 0
    }

    /// The slots, sorted by key, one per path: one block of exactly their size.
    private var slots: UnsafeMutablePointer<Slot>?
    private(set) var count = 0
    /// The slots while the record is read: blocks of ``chunkSize``, moved into ``slots`` one by one at the
    /// end (a growing array would hold its old and its new storage at once, 1.5 times the slots).
    private var chunks: [UnsafeMutablePointer<Slot>] = []
    private static let chunkSize = 1 << 16
    /// What the record says besides its entries.
    private(set) var summary = Summary()
    /// Slots seen by the walk, so that ``readAgain(_:)`` is made only when some are not.
    private var seenCount = 0

    /// The index of the record in `tree`, or nil when it has none or it is not a record.
    static func of(_ tree: Descriptor) -> RecordedEntryIndex? {
        guard let file = InstallRecord.recordFile(of: tree) else { return nil }
        let index = RecordedEntryIndex()
        var summary = Summary()
        var implied = ImpliedFolders()
        func add(_ path: String, _ kind: Kind, value: UInt64 = 0, crc: UInt32? = nil, mode: UInt32) {
            implied.forEach(above: path) { index.append(hash($0), .impliedDirectory, 0, nil, 0) }
            index.append(hash(path), kind, value, crc, mode)
        }
        let header = InstallRecordReader.read(file, limit: InstallRecord.maxRecordSize, eachFile: { file in
            summary.files += 1
            summary.bytes &+= file.size
            add(file.path, .file, value: file.size, crc: file.crc32, mode: file.mode)
        }, eachDirectory: { directory in
            add(directory.path, .directory, mode: directory.mode)
        }, eachLink: { link in
            summary.files += 1
            add(link.path, .link, value: targetHash(link.target), mode: 0)
        })
        guard header != nil else { return nil }
        index.summary = summary
        index.sortAndMerge()
        return index
    }

    private init() {}

    deinit {
        slots?.deallocate()
        for chunk in chunks { chunk.deallocate() }
    }

    /// The slot of `path` (its UTF-8 bytes), or nil when the record does not expect it.
    func find(_ path: UnsafeRawBufferPointer) -> Int? {
        let hashed = Self.hash(path)
        let key = (hashed.0, hashed.1 & ~0xFF)
        var low = 0, high = count
        while low < high {
            let middle = (low + high) / 2
            let other = slots![middle].key
            if other == key { return middle }
            if other < key { low = middle + 1 } else { high = middle }
        }
        return nil
    }

    /// The slot at `position`.
    subscript(position: Int) -> Slot { slots![position] }

    /// Marks the slot at `position` as seen by the walk.
    func markSeen(_ position: Int) {
        guard slots![position].key1 & Flag.seen == 0 else { return }
        slots![position].key1 |= Flag.seen
        seenCount += 1
    }

    /// True when every slot was seen.
    var allSeen: Bool { seenCount == count }

    /// The hash of a link target, as ``Slot/value`` holds it for a link.
    static func targetHash(_ target: String) -> UInt64 { hash(target).0 }

    /// Reads the record in `tree` once more and calls `each` with the listed or implied paths whose slot
    /// was not seen by the walk, or is a link's: the path, its slot (as it was before this call) and
    /// position, and for a link its recorded target. Each slot is marked seen after its call, so a path
    /// listed twice comes once (a link's at each listing). False when the record can no longer be read.
    func readAgain(_ tree: Descriptor, _ each: (_ path: String, _ slot: Slot, _ position: Int, _ target: String?) -> Void) -> Bool {
        guard let file = InstallRecord.recordFile(of: tree) else { return false }
        var implied = ImpliedFolders()
        func visit(_ path: String, _ kind: Kind, target: String? = nil) {
            implied.forEach(above: path) { visitOne($0, .impliedDirectory, target: nil) }
            visitOne(path, kind, target: target)
        }
        func visitOne(_ path: String, _ kind: Kind, target: String?) {
            var bytes = path
            guard let position = bytes.withUTF8({ find(UnsafeRawBufferPointer($0)) }) else { return }
            let slot = self[position]
            guard slot.kind == kind, !slot.seen || kind == .link else { return }
            each(path, slot, position, target)
            markSeen(position)
        }
        return InstallRecordReader.read(file, limit: InstallRecord.maxRecordSize, eachFile: { visit($0.path, .file) },
                                        eachDirectory: { visit($0.path, .directory) },
                                        eachLink: { visit($0.path, .link, target: $0.target) }) != nil
    }

    // MARK: - Building

    private func append(_ key: (UInt64, UInt64), _ kind: Kind, _ value: UInt64, _ crc: UInt32?, _ mode: UInt32) {
        let offset = count % Self.chunkSize
        if offset == 0 { chunks.append(.allocate(capacity: Self.chunkSize)) }
        let flags = kind.rawValue | (crc != nil ? Flag.hasCRC : 0)
        (chunks[chunks.count - 1] + offset).initialize(to: Slot(key0: key.0, key1: key.1 & ~0xFF | flags, value: value,
                                                                crc32: crc ?? 0, mode: mode))
        count += 1
    }

    /// Moves the chunks into one block of ``count`` slots, freeing each once moved.
    private func gather() {
        let block = UnsafeMutablePointer<Slot>.allocate(capacity: max(count, 1))
        for (number, chunk) in chunks.enumerated() {
            let start = number * Self.chunkSize
            (block + start).moveInitialize(from: chunk, count: min(Self.chunkSize, count - start))
            chunk.deallocate()
        }
        chunks = []
        slots = block
    }

    /// Gathers the slots, sorts them by key and keeps, of the slots of one path, the one of the highest kind.
    private func sortAndMerge() {
        gather()
        guard count > 0, let slots else { return }
        Self.sortInPlace(slots, count: count)
        let buffer = UnsafeMutableBufferPointer(start: slots, count: count)
        var kept = 0
        for position in 0..<count {
            if position + 1 < count && buffer[position + 1].key == buffer[position].key { continue }
            buffer[kept] = buffer[position]
            kept += 1
        }
        count = kept
    }

    /// Sorts `count` slots at `base` by ``Slot/precedes(_:_:)`` in place: the standard library's sort
    /// takes a buffer of up to half the slots (16 MiB at 1,000,000 paths). Quicksort on a median of three
    /// (the keys are hashes, in no order an input can choose), insertion sort below 16 slots, the shorter
    /// side first so the stack stays shallow, and heapsort past a depth no fair input reaches.
    /// `depthLimit` (for tests) makes the heapsort come sooner.
    static func sortInPlace(_ base: UnsafeMutablePointer<Slot>, count: Int, depthLimit: Int? = nil) {
        var low = 0, high = count  // the range still to sort: [low, high)
        var depth = depthLimit ?? 2 * (Int.bitWidth - count.leadingZeroBitCount)
        while high - low > 16 {
            if depth <= 0 { return heapSort(base + low, count: high - low) }
            depth -= 1
            let middle = low + (high - low) / 2
            if Slot.precedes(base[middle], base[low]) { exchange(base, middle, low) }
            if Slot.precedes(base[high - 1], base[low]) { exchange(base, high - 1, low) }
            if Slot.precedes(base[high - 1], base[middle]) { exchange(base, high - 1, middle) }
            let pivot = base[middle]
            var left = low, right = high - 1
            while left <= right {
                while Slot.precedes(base[left], pivot) { left += 1 }
                while Slot.precedes(pivot, base[right]) { right -= 1 }
                if left <= right {
                    exchange(base, left, right)
                    left += 1
                    right -= 1
                }
            }
            // [low, right] and [left, high) are left to sort; the shorter now, the longer in this loop.
            if right + 1 - low < high - left {
                sortInPlace(base + low, count: right + 1 - low, depthLimit: depth)
                low = left
            } else {
                sortInPlace(base + left, count: high - left, depthLimit: depth)
                high = right + 1
            }
        }
        for position in (low + 1)..<max(high, low + 1) {
            let slot = base[position]
            var hole = position
            while hole > low && Slot.precedes(slot, base[hole - 1]) {
                base[hole] = base[hole - 1]
                hole -= 1
            }
            base[hole] = slot
        }
    }

    private static func exchange(_ base: UnsafeMutablePointer<Slot>, _ one: Int, _ other: Int) {
        let kept = base[one]
        base[one] = base[other]
        base[other] = kept
    }

    private static func heapSort(_ base: UnsafeMutablePointer<Slot>, count: Int) {
        func siftDown(_ start: Int, _ end: Int) {
            var root = start
            while 2 * root + 1 < end {
                var child = 2 * root + 1
                if child + 1 < end && Slot.precedes(base[child], base[child + 1]) { child += 1 }
                guard Slot.precedes(base[root], base[child]) else { return }
                exchange(base, root, child)
                root = child
            }
        }
        for start in stride(from: count / 2 - 1, through: 0, by: -1) { siftDown(start, count) }
        for end in stride(from: count - 1, to: 0, by: -1) {
            exchange(base, 0, end)
            siftDown(0, end)
        }
    }

    // MARK: - Keys

    /// The key of `path`: its bytes in canonical composition (an ASCII path as it is).
    private static func hash(_ path: String) -> (UInt64, UInt64) {
        var text = path
        return text.withUTF8 { hash(UnsafeRawBufferPointer($0)) }
    }

    /// The key of the UTF-8 bytes of a path.
    static func hash(_ bytes: UnsafeRawBufferPointer) -> (UInt64, UInt64) {
        guard bytes.contains(where: { $0 >= 0x80 }) else { return rawHash(bytes) }
        var composed = String(decoding: bytes, as: UTF8.self).precomposedStringWithCanonicalMapping
        return composed.withUTF8 { rawHash(UnsafeRawBufferPointer($0)) }
    }

    private static func rawHash(_ bytes: UnsafeRawBufferPointer) -> (UInt64, UInt64) {
        (MurmurHash64A.hash(bytes, seed: 0x243F_6A88_85A3_08D3), MurmurHash64A.hash(bytes, seed: 0x1319_8A2E_0370_7344))
    }

    /// The folders each path of the record implies, as they come. A folder's entries come one after another
    /// in every record assetpack writes, so the folders above a path that shares its parent with the path
    /// before are not handed out again; any that are (a folder that comes back) are merged when the slots
    /// are sorted.
    private struct ImpliedFolders {
        /// The parent of the path before, whose ancestors were all handed out.
        private var lastParent = ""

        /// Calls `each` with the folders above `path` not implied by the path before, deepest first.
        mutating func forEach(above path: String, _ each: (String) -> Void) {
            guard let slash = path.lastIndex(of: "/") else {
                lastParent = ""
                return
            }
            let parent = path[..<slash]
            guard !parent.utf8.elementsEqual(lastParent.utf8) else { return }
            var folder = parent
            while !folder.isEmpty {
                let last = lastParent.utf8, count = folder.utf8.count
                if last.starts(with: folder.utf8) && (last.count == count || last.dropFirst(count).first == UInt8(ascii: "/")) {
                    break  // folder is the parent before or above it
                }
                each(String(folder))
                guard let up = folder.lastIndex(of: "/") else { break }
                folder = folder[..<up]
            }
            lastParent = String(parent)
        }
    }
}
