/// Splits the bytes of one read that spans several ranges of a file (in order, none empty or overlapping) among
/// them as they arrive, the bytes between them skipped: what a coalesced request (``SplittingSink``), a request for
/// several patches (``PatchSink``) and the reading of a patch file (`PatchVerification`) share.
struct RangeSplitter {
    /// The ranges, in order.
    let ranges: [Range<UInt64>]
    /// Where the read starts.
    private let start: UInt64
    /// The offset of the next byte.
    private(set) var position: UInt64
    /// The range the next bytes belong to (``ranges``' count once every range is complete).
    private(set) var member = 0

    /// A splitter for a read starting at `start` (the first range's start when nil).
    init(_ ranges: [Range<UInt64>], from start: UInt64? = nil) {
        self.ranges = ranges
        self.start = start ?? ranges.first?.lowerBound ?? 0
        position = self.start
    }

    /// True once every range is complete.
    var isComplete: Bool { member == ranges.count }

    /// Back to the read's first byte.
    mutating func restart() {
        position = start
        member = 0
    }

    /// Hands `piece` each part of `bytes` that falls in a range, with the range's index, and `ended` each range's
    /// index once its last byte went by; bytes past the last range are ignored.
    mutating func split(_ bytes: UnsafeRawBufferPointer, piece: (Int, UnsafeRawBufferPointer) throws(AssetPackError) -> Void,
                        ended: (Int) throws(AssetPackError) -> Void) throws(AssetPackError) {
        var rest = bytes
        while !rest.isEmpty, member < ranges.count {
            let range = ranges[member]
            if position < range.lowerBound {  // a gap between ranges
                let skipped = Int(min(UInt64(rest.count), range.lowerBound - position))
                rest = UnsafeRawBufferPointer(rebasing: rest[skipped...])
                position += UInt64(skipped)
                continue
            }
            let taken = Int(min(UInt64(rest.count), range.upperBound - position))
            try piece(member, UnsafeRawBufferPointer(rebasing: rest[..<taken]))
            rest = UnsafeRawBufferPointer(rebasing: rest[taken...])
            position += UInt64(taken)
            if position == range.upperBound {
                member += 1
                try ended(member - 1)
            }
        }
    }
}
