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
/// Memory: one 256 KiB buffer for the inflated instructions, one for copies, one inflater.
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
    private let inflater: Inflater
    private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 * 1024, alignment: 64)
    private let copyBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 * 1024, alignment: 64)
    private var position: UInt64
    private var member = 0
    private var current: (sink: StagedFileSink, reader: ChunkPatch.Reader, ended: Bool)?
    /// Where the current run's next byte goes in the file.
    private var outputPosition: UInt64 = 0
    /// The runs whose patch did not make their chunks, by index.
    private(set) var failed: Set<Int> = []

    /// A sink for the bytes from `runs.first.bytes.lowerBound` to `runs.last.bytes.upperBound` of a patch file, whose
    /// patches apply to `base` (`baseSize` bytes long); `inPlace` when the staging file is a clone of `base`.
    init(runs: [Run], base: Descriptor, baseSize: UInt64, inPlace: Bool, makeSink: @escaping MakeSink) throws(AssetPackError) {
        precondition(!runs.isEmpty, "a patch request holds at least one patch")
        (self.runs, self.base, self.baseSize, self.inPlace, self.makeSink) = (runs, base, baseSize, inPlace, makeSink)
        position = runs[0].bytes.lowerBound
        inflater = try zipLayer(Inflater())
    }

    deinit {
        buffer.deallocate()
        copyBuffer.deallocate()
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws(AssetPackError) {
        var rest = bytes
        while !rest.isEmpty, member < runs.count {
            let range = runs[member].bytes
            if position < range.lowerBound {  // a gap between patches
                let skipped = Int(min(UInt64(rest.count), range.lowerBound - position))
                rest = UnsafeRawBufferPointer(rebasing: rest[skipped...])
                position += UInt64(skipped)
                continue
            }
            let taken = Int(min(UInt64(rest.count), range.upperBound - position))
            if current == nil && !failed.contains(member) {
                inflater.reset()
                current = (try makeSink(member), ChunkPatch.Reader(outputSize: UInt64(runs[member].output.count), baseSize: baseSize), false)
                outputPosition = runs[member].output.lowerBound
            }
            if current != nil { try apply(UnsafeRawBufferPointer(rebasing: rest[..<taken])) }
            rest = UnsafeRawBufferPointer(rebasing: rest[taken...])
            position += UInt64(taken)
            if position == range.upperBound { try endRun() }
        }
    }

    func restart() throws(AssetPackError) {
        position = runs[0].bytes.lowerBound
        member = 0
        current = nil
        failed = []
    }

    func finish() throws(AssetPackError) {
        guard member == runs.count else {
            throw AssetPackError(.verification, "the delivered patches ended at byte \(position), before patch \(member + 1) of "
                                 + "\(runs.count) was complete")
        }
    }

    /// Inflates `input`, a piece of the current run's patch, and carries out the instructions it holds.
    private func apply(_ input: UnsafeRawBufferPointer) throws(AssetPackError) {
        var input = input
        do throws(AssetPackError) {
            while var run = current {
                if run.ended {
                    if !input.isEmpty { throw AssetPackError(.verification, "a chunk patch has bytes after its deflate stream") }
                    return
                }
                let step: Inflater.Step
                do { step = try inflater.inflate(input, into: buffer) } catch {
                    throw AssetPackError(.verification, "a chunk patch does not inflate: \(error.message)")
                }
                input = UnsafeRawBufferPointer(rebasing: input[step.consumed...])
                try run.reader.read(UnsafeRawBufferPointer(rebasing: buffer[0..<step.produced])) { (instruction) throws(AssetPackError) in
                    try carryOut(instruction, into: run.sink)
                }
                run.ended = step.finished
                current = run
                if step.produced < buffer.count && (input.isEmpty || step.consumed == 0) && !run.ended { return }
            }
        } catch where error.code == .verification {
            fail()
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

    /// Ends the current run: its chunks are written and checked when the patch made all of them.
    private func endRun() throws(AssetPackError) {
        defer { current = nil; member += 1 }
        guard let run = current else { return }
        guard run.ended, run.reader.isComplete else { return fail() }
        do throws(AssetPackError) { try run.sink.finish() } catch where error.code == .verification {
            fail()
        }
    }

    /// Gives up on the current run.
    private func fail() {
        failed.insert(member)
        current = nil
    }
}
