/// The order in which the workers write files: batches pulled one at a time.
///
/// Large files come first, largest first, one per batch, so that the pool never ends with one worker
/// inflating a big file while the others idle (longest-processing-time-first scheduling). The other
/// files follow in path order, in runs of siblings (a whole folder, unless it holds more than ``batchFiles``
/// files or ``batchBytes`` bytes), so workers do not queue on one directory's lock. Order never matters for
/// correctness: a batch's folders are made first (``StagingFolders``), and every file is verified on its own.
enum WorkOrder {
    /// Files at least this large are scheduled on their own, largest first.
    static let largeFile: UInt64 = 1 << 20
    /// Most files in a batch of small files.
    static let batchFiles = 256
    /// Most bytes in a batch of small files.
    static let batchBytes: UInt64 = 8 << 20

    /// `positions` (indexes into `items`, in path order) grouped into batches.
    static func batches(of positions: [Int], in items: [ExpansionItem]) -> [[Int]] {
        let large = positions.filter { items[$0].size >= largeFile }.sorted { items[$0].size > items[$1].size }
        var batches = large.map { [$0] }
        var current: [Int] = []
        var bytes: UInt64 = 0
        for position in positions where items[position].size < largeFile {
            let sameFolder = current.last.map { items[$0].path.hasSameParent(as: items[position].path) } ?? true
            if !current.isEmpty && (!sameFolder || current.count == batchFiles || bytes + items[position].size > batchBytes) {
                batches.append(inArchiveOrder(current, items))
                current = []
                bytes = 0
            }
            current.append(position)
            bytes += items[position].size
        }
        if !current.isEmpty { batches.append(inArchiveOrder(current, items)) }
        return batches
    }

    /// A batch of archive entries in the order of the archive (a folder's entries are seldom stored in
    /// path order): a worker reading them one after another then reads the archive forward, and
    /// ``ZipReadBuffers`` takes most of them from one wide read instead of one `pread` each.
    private static func inArchiveOrder(_ batch: [Int], _ items: [ExpansionItem]) -> [Int] {
        guard batch.count > 1, items[batch[0]].entryPosition >= 0 else { return batch }
        return batch.sorted { (items[$0].entryPosition, $0) < (items[$1].entryPosition, $1) }
    }
}

/// A value handed to worker threads whose parts are each touched by one worker only.
final class PerWorker<Value>: @unchecked Sendable {
    private var values: [Value]
    init(count: Int, make: () -> Value) { values = (0..<count).map { _ in make() } }
    subscript(worker: Int) -> Value { values[worker] }
}

/// Results written by several workers, each at its own index of a fixed range (no lock: no two workers
/// write one index, and they are read once the workers are done).
final class ResultSlots<Value>: @unchecked Sendable {
    private let values: UnsafeMutableBufferPointer<Value?>

    /// `count` slots, filled from `initial`.
    init(count: Int, _ initial: [Int: Value] = [:]) {
        values = .allocate(capacity: count)
        values.initialize(repeating: nil)
        for (index, value) in initial { values[index] = value }
    }

    deinit {
        values.deinitialize()
        values.deallocate()
    }

    subscript(index: Int) -> Value? {
        get { values[index] }
        set { values[index] = newValue }
    }
}
