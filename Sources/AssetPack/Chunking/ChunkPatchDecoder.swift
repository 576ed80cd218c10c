import AssetPackZip

/// Reads one deflated chunk patch as its bytes arrive: inflates them and hands out the instructions
/// (``ChunkPatch/Reader``). What ``PatchSink`` applies and `PatchVerification` checks. Reusable from patch to patch
/// (``start(outputSize:baseSize:)``); one 256 KiB buffer and one inflater.
final class ChunkPatchDecoder {
    private let inflater: Inflater
    private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 * 1024, alignment: 64)
    private var reader = ChunkPatch.Reader(outputSize: 0, baseSize: 0)
    private var ended = false

    /// A decoder; ``start(outputSize:baseSize:)`` before each patch.
    /// - Throws: what starting an inflater throws.
    init() throws(AssetPackError) {
        inflater = try zipLayer(Inflater())
    }

    deinit { buffer.deallocate() }

    /// Starts a patch that makes `outputSize` bytes from a previous version of `baseSize` bytes.
    func start(outputSize: UInt64, baseSize: UInt64) {
        inflater.reset()
        reader = ChunkPatch.Reader(outputSize: outputSize, baseSize: baseSize)
        ended = false
    }

    /// Inflates `bytes`, the patch's next ones, and hands `body` the instructions they hold.
    /// - Throws: `.verification` for bytes that do not inflate, bytes after the deflate stream, or instructions that do
    ///   not fit (``ChunkPatch/Reader``); what `body` throws.
    func feed(_ bytes: UnsafeRawBufferPointer, _ body: (ChunkPatch.Instruction) throws(AssetPackError) -> Void) throws(AssetPackError) {
        var input = bytes
        while true {
            if ended {
                if !input.isEmpty { throw AssetPackError(.verification, "a chunk patch has bytes after its deflate stream") }
                return
            }
            let step: Inflater.Step
            do { step = try inflater.inflate(input, into: buffer) } catch {
                throw AssetPackError(.verification, "a chunk patch does not inflate: \(error.message)")
            }
            input = UnsafeRawBufferPointer(rebasing: input[step.consumed...])
            try reader.read(UnsafeRawBufferPointer(rebasing: buffer[0..<step.produced]), body)
            ended = step.finished
            if step.produced < buffer.count && (input.isEmpty || step.consumed == 0) && !ended { return }
        }
    }

    /// Throws `.verification` unless the patch's deflate stream ended and its instructions made every byte.
    func finish() throws(AssetPackError) {
        guard ended, reader.isComplete else {
            throw AssetPackError(.verification, "a chunk patch ends before its instructions make all of its bytes")
        }
    }
}
