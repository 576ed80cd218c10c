/// Puts a plan's items in path order (``AssetPath/<(_:_:)``) in place.
///
/// Items already in order cost one pass of comparisons. Others are sorted as positions over one flat copy
/// of their paths' bytes, then moved by following each cycle of the permutation (no second copy of the items).
enum PlanOrder {
    /// Sorts `items` by path.
    /// - Complexity: O(*n*) comparisons when `items` is sorted already, else O(*n* log *n*).
    static func sort(_ items: inout [ExpansionItem]) {
        if isSorted(items) { return }
        var order = sortedPositions(items)
        // items[j] must become the item now at order[j]: follow each cycle of the permutation once, by
        // swaps, which move items without retaining or releasing their parts.
        for start in order.indices where order[start] != start {
            var position = start
            while true {
                let next = Int(order[position])
                order[position] = Int32(position)
                if next == start { break }
                items.swapAt(position, next)
                position = next
            }
        }
    }

    /// The positions of `items` in path order: `items.indices` when they are in order already.
    static func positions(of items: [ExpansionItem]) -> [Int] {
        isSorted(items) ? Array(items.indices) : sortedPositions(items).map { Int($0) }
    }

    private static func isSorted(_ items: [ExpansionItem]) -> Bool {
        items.indices.dropFirst().allSatisfy { items[$0 - 1].path < items[$0].path }
    }

    /// The positions of `items` in path order.
    private static func sortedPositions(_ items: [ExpansionItem]) -> [Int32] {
        var bytes: [UInt8] = []
        var starts: [Int] = []
        // By index, not `for item in items`: a copy of each item would retain and release its parts.
        bytes.reserveCapacity(items.indices.reduce(0) { $0 + items[$1].path.string.utf8.count })
        starts.reserveCapacity(items.count + 1)
        for position in items.indices {
            starts.append(bytes.count)
            items[position].path.withUTF8 { bytes.append(contentsOf: $0) }
        }
        starts.append(bytes.count)
        var order = (0..<Int32(items.count)).map { $0 }
        bytes.withUnsafeBufferPointer { all in
            func path(_ position: Int32) -> UnsafeBufferPointer<UInt8> {
                UnsafeBufferPointer(rebasing: all[starts[Int(position)]..<starts[Int(position) + 1]])
            }
            order.sort { AssetPath.precedes(path($0), path($1)) }
        }
        return order
    }
}
