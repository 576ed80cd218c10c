/// Where the bytes of one coalesced request (``DeliveryGroups``) go: the range from the first member's data
/// to the last one's, split as it arrives into one ``StagedFileSink`` per member, gap bytes skipped.
///
/// Members are consecutive and not empty, so only one member's sink exists at a time. A member that does not
/// check out is reported by ``finish()`` as ``AssetPackError/Code/verification``, so the delivery fetches
/// the group again; ``restart()`` starts every member over.
final class SplittingSink: DeliverySink {
    /// Makes the sink of the member at an index, writing its file from its first byte.
    typealias MakeSink = (Int) throws(AssetPackError) -> StagedFileSink

    private let makeSink: MakeSink
    private var splitter: RangeSplitter
    private var current: StagedFileSink?
    private var damage: AssetPackError?
    /// The CRC-32 of each member, once it checked out.
    private(set) var checksums: [UInt32?]

    /// A sink for the bytes from `ranges.first.lowerBound` to `ranges.last.upperBound` of an archive;
    /// `ranges` (in order, not overlapping) are the members' data.
    init(ranges: [Range<UInt64>], makeSink: @escaping MakeSink) {
        self.splitter = RangeSplitter(ranges)
        self.makeSink = makeSink
        self.checksums = Array(repeating: nil, count: ranges.count)
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws(AssetPackError) {
        try splitter.split(bytes, piece: { (member, piece) throws(AssetPackError) in
            if current == nil { current = try makeSink(member) }
            if damage == nil { try current?.write(piece) }
        }, ended: { (member) throws(AssetPackError) in try endMember(member) })
    }

    /// Finishes member `member`: its CRC-32 when it checks out, else the damage is remembered.
    private func endMember(_ member: Int) throws(AssetPackError) {
        defer { current = nil }
        guard damage == nil, let sink = current else { return }
        do {
            try sink.finish()
            checksums[member] = sink.crc32
        } catch where error.code == .verification {
            damage = error
        }
    }

    func restart() throws(AssetPackError) {
        splitter.restart()
        current = nil
        damage = nil
        checksums = Array(repeating: nil, count: splitter.ranges.count)
    }

    func finish() throws(AssetPackError) {
        if let damage { throw damage }
        guard splitter.isComplete else {
            throw AssetPackError(.verification, "the delivered range ended at byte \(splitter.position), before member "
                                 + "\(splitter.member + 1) of \(splitter.ranges.count) was complete")
        }
    }
}
