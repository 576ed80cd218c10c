/// Files of a delivered bundle that one request can bring, as its delivery wants them joined
/// (``BundleDelivery/coalescing``): members of the same pack archive, whole non-empty entries without a block
/// index, whose data lie in the archive in order with small gaps between them: one range, gaps included,
/// split among the members as it arrives (``SplittingSink``).
enum DeliveryGroups {
    /// One member: its plan position and where its data lie in the archive.
    struct Member: Sendable {
        var position: Int
        var range: Range<UInt64>
    }

    /// `positions` (indexes into `items`) split into groups of at least two members of one archive, in
    /// data order, as `coalescing` allows, and the positions no group took (in their order).
    /// - Complexity: O(*n* log *n*) in the number of positions.
    static func of(_ positions: [Int], in items: [ExpansionItem],
                   coalescing: DeliveryCoalescing) -> (groups: [[Member]], rest: [Int]) {
        var candidates: [(file: String, member: Member)] = []
        var rest: [Int] = []
        for position in positions {
            if let candidate = candidate(items[position]) {
                candidates.append((candidate.file, Member(position: position, range: candidate.range)))
            } else {
                rest.append(position)
            }
        }
        candidates.sort { ($0.file, $0.member.range.lowerBound) < ($1.file, $1.member.range.lowerBound) }
        var groups: [[Member]] = []
        var current: [Member] = []
        var file = ""
        for (name, member) in candidates {
            if let first = current.first, let last = current.last, name == file, member.range.lowerBound >= last.range.upperBound,
               member.range.lowerBound - last.range.upperBound <= coalescing.maximumGap,
               member.range.upperBound - first.range.lowerBound <= coalescing.maximumSpan {
                current.append(member)
                continue
            }
            close(&current, into: &groups, rest: &rest)
            current = [member]
            file = name
        }
        close(&current, into: &groups, rest: &rest)
        return (groups, rest)
    }

    /// The one request that brings every member of `group` (members of `items`' one archive, in data order):
    /// from the first member's data to the last one's, the gaps between included.
    static func request(for group: [Member], in items: [ExpansionItem]) -> DeliveryRequest? {
        guard let first = group.first, let last = group.last, case .delivered(let layout) = items[first.position].origin
        else { return nil }
        let range = first.range.lowerBound..<last.range.upperBound
        return DeliveryRequest(file: layout.whole.file, range: range, length: UInt64(range.count))
    }

    /// Ends the group being built: a group of one is an ordinary delivery.
    private static func close(_ current: inout [Member], into groups: inout [[Member]], rest: inout [Int]) {
        if current.count > 1 { groups.append(current) } else if let single = current.first { rest.append(single.position) }
        current = []
    }

    /// The archive and data range of a delivered pack member that can join a group; nil for anything else.
    private static func candidate(_ item: ExpansionItem) -> (file: String, range: Range<UInt64>)? {
        guard case .delivered(let layout) = item.origin, layout.blocks == nil, let range = layout.whole.range,
              !range.isEmpty else { return nil }
        return (layout.whole.file, range)
    }
}
