/// Where the bytes of one coalesced request (``DeliveryGroups``) go: the range from the first member's data
/// to the last one's, split as it arrives into one ``StagedFileSink`` per member, gap bytes skipped.
///
/// Members are consecutive and not empty, so only one member's sink exists at a time. A member that does not
/// check out is reported by ``finish()`` as ``AssetPackError/Code/verification``, so the delivery fetches
/// the group again; ``restart()`` starts every member over.
final class SplittingSink: DeliverySink {
    /// Makes the sink of the member at an index, writing its file from its first byte.
    typealias MakeSink = (Int) throws(AssetPackError) -> StagedFileSink

    private let start: UInt64
    private let ranges: [Range<UInt64>]
    private let makeSink: MakeSink
    private var position: UInt64
    private var member = 0
    private var current: StagedFileSink?
    private var damage: AssetPackError?
    /// The CRC-32 of each member, once it checked out.
    private(set) var checksums: [UInt32?]

    /// A sink for the bytes from `ranges.first.lowerBound` to `ranges.last.upperBound` of an archive;
    /// `ranges` (in order, not overlapping) are the members' data.
    init(ranges: [Range<UInt64>], makeSink: @escaping MakeSink) {
        self.ranges = ranges
        self.start = ranges.first?.lowerBound ?? 0
        self.position = start
        self.makeSink = makeSink
        self.checksums = Array(repeating: nil, count: ranges.count)
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws(AssetPackError) {
        var rest = bytes
        while !rest.isEmpty, member < ranges.count {
            let range = ranges[member]
            if position < range.lowerBound {  // a gap between members
                let skipped = Int(min(UInt64(rest.count), range.lowerBound - position))
                rest = UnsafeRawBufferPointer(rebasing: rest[skipped...])
                position += UInt64(skipped)
                continue
            }
            let taken = Int(min(UInt64(rest.count), range.upperBound - position))
            if current == nil { current = try makeSink(member) }
            if damage == nil { try current?.write(UnsafeRawBufferPointer(rebasing: rest[..<taken])) }
            rest = UnsafeRawBufferPointer(rebasing: rest[taken...])
            position += UInt64(taken)
            if position == range.upperBound { try endMember() }
        }
    }

    /// Finishes the current member: its CRC-32 when it checks out, else the damage is remembered.
    private func endMember() throws(AssetPackError) {
        defer { current = nil; member += 1 }
        guard damage == nil, let sink = current else { return }
        do {
            try sink.finish()
            checksums[member] = sink.crc32
        } catch where error.code == .verification {
            damage = error
        }
    }

    func restart() throws(AssetPackError) {
        position = start
        member = 0
        current = nil
        damage = nil
        checksums = Array(repeating: nil, count: ranges.count)
    }

    func finish() throws(AssetPackError) {
        if let damage { throw damage }
        guard member == ranges.count else {
            throw AssetPackError(.verification, "the delivered range ended at byte \(position), before member \(member + 1) of "
                                 + "\(ranges.count) was complete")
        }
    }
}
