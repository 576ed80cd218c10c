import AssetPackSystem
import AssetPackZip

/// Where the bytes of one request for chunk patches (``DeliveredLayout/Patches``) go: split by patch as they arrive,
/// each inflated and its instructions (``ChunkPatch``) carried out, new bytes written as they come and copies read from
/// the previous version `base`, into a ``StagedFileSink`` that checks and journals the run's chunks. When the staging
/// file started as a clone of `base`, a copy from the very offset it goes to is read and checked but not written: an
/// upgrade then writes little more than the new bytes.
///
/// A patch that does not make its chunks (the local copy was not the version it applies to, or the patch is damaged)
/// is not an error of the request: it is listed in ``failed`` and its chunks are then delivered as chunks. Only a
/// request that ends early throws (``AssetPackError/Code/verification``), so the delivery fetches it again.
/// Memory: one 256 KiB buffer for copies and a ``ChunkPatchDecoder``.
final class PatchSink: DeliverySink {
    /// One patch of the request: its bytes in the patch file, and where the bytes it makes go in the file.
    struct Run {
        let bytes: Range<UInt64>
        let output: Range<UInt64>
    }

    /// Makes the sink of the run at an index.
    typealias MakeSink = (Int) throws(AssetPackError) -> StagedFileSink

    private let runs: [Run]
    private let base: Descriptor
    private let baseSize: UInt64
    /// Whether the staging file is a clone of `base`: a copy from where its bytes already are is then checked, not written.
    private let inPlace: Bool
    private let makeSink: MakeSink
    private let decoder: ChunkPatchDecoder
    private let copyBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 * 1024, alignment: 64)
    private var splitter: RangeSplitter
    /// The sink of the run being read, nil once it failed.
    private var current: StagedFileSink?
    /// Where the current run's next byte goes in the file.
    private var outputPosition: UInt64 = 0
    /// The runs whose patch did not make their chunks, by index.
    private(set) var failed: Set<Int> = []

    /// A sink for the bytes from `runs.first.bytes.lowerBound` to `runs.last.bytes.upperBound` of a patch file, whose
    /// patches apply to `base` (`baseSize` bytes long); `inPlace` when the staging file is a clone of `base`.
    init(runs: [Run], base: Descriptor, baseSize: UInt64, inPlace: Bool, makeSink: @escaping MakeSink) throws(AssetPackError) {
        precondition(!runs.isEmpty, "a patch request holds at least one patch")
        (self.runs, self.base, self.baseSize, self.inPlace, self.makeSink) = (runs, base, baseSize, inPlace, makeSink)
        splitter = RangeSplitter(runs.map(\.bytes))
        decoder = try ChunkPatchDecoder()
    }

    deinit { copyBuffer.deallocate() }

    func write(_ bytes: UnsafeRawBufferPointer) throws(AssetPackError) {
        try splitter.split(bytes, piece: { (run, piece) throws(AssetPackError) in
            if current == nil && !failed.contains(run) {
                decoder.start(outputSize: UInt64(runs[run].output.count), baseSize: baseSize)
                current = try makeSink(run)
                outputPosition = runs[run].output.lowerBound
            }
            guard let sink = current else { return }
            do throws(AssetPackError) {
                try decoder.feed(piece) { (instruction) throws(AssetPackError) in try carryOut(instruction, into: sink) }
            } catch where error.code == .verification {
                fail(run)
            }
        }, ended: { (run) throws(AssetPackError) in try endRun(run) })
    }

    func restart() throws(AssetPackError) {
        splitter.restart()
        current = nil
        failed = []
    }

    func finish() throws(AssetPackError) {
        guard splitter.isComplete else {
            throw AssetPackError(.verification, "the delivered patches ended at byte \(splitter.position), before patch "
                                 + "\(splitter.member + 1) of \(runs.count) was complete")
        }
    }

    /// Writes what `instruction` makes into `sink`.
    private func carryOut(_ instruction: ChunkPatch.Instruction, into sink: StagedFileSink) throws(AssetPackError) {
        switch instruction {
        case .literal(let bytes):
            try sink.write(bytes)
            outputPosition += UInt64(bytes.count)
        case .copy(let from, let length):
            let alreadyThere = inPlace && from == outputPosition
            outputPosition += length
            var offset = from
            while offset < from + length {
                let wanted = UnsafeMutableRawBufferPointer(rebasing: copyBuffer[0..<Int(min(UInt64(copyBuffer.count), from + length - offset))])
                let count: Int
                do { count = try base.fd.read(at: offset, into: wanted, path: base.path) } catch {
                    throw AssetPackError(.verification, "the previous version could not be read: \(error)", path: base.path)
                }
                guard count > 0 else { throw AssetPackError(.verification, "the previous version is shorter than its patch says", path: base.path) }
                let bytes = UnsafeRawBufferPointer(rebasing: copyBuffer[0..<count])
                if alreadyThere { try sink.accept(inPlace: bytes) } else { try sink.write(bytes) }
                offset += UInt64(count)
            }
        }
    }

    /// Ends run `run`: its chunks are written and checked when the patch made all of them.
    private func endRun(_ run: Int) throws(AssetPackError) {
        defer { current = nil }
        guard let sink = current else { return }
        do throws(AssetPackError) {
            try decoder.finish()
            try sink.finish()
        } catch where error.code == .verification {
            fail(run)
        }
    }

    /// Gives up on run `run`.
    private func fail(_ run: Int) {
        failed.insert(run)
        current = nil
    }
}
