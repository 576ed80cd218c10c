import AssetPackSystem
import AssetPackZip

/// Where the bytes of one delivered file, or of one block of it, go: into the staging file at their offset,
/// inflated on the way when the bundle stores them deflated, and passed through the file's ``WriteCheck``
/// as they are written (counted, CRC-32, SHA-256 when the manifest has it). ``finish()`` accepts them only
/// when the check does, so nothing a ``BundleDelivery`` streams counts before it checked out; damage found
/// on the way (a stream that does not inflate, too many bytes) is remembered and reported there too, as the
/// check's ``AssetPackError/Code/verification``, which makes the delivery fetch the bytes again.
///
/// Memory: one 256 KiB buffer and, for deflated data, one zlib stream, whatever the size of the file.
final class StagedFileSink: DeliverySink {
    private let file: Descriptor
    private let start: UInt64
    private let inflater: Inflater?
    /// Whether the data is a deflate stream that must end with its final block (a whole entry; a block but
    /// the last ends with a flush instead).
    private let endsStream: Bool
    private let progress: ProgressTracker?
    private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 * 1024, alignment: 64)
    private var check: WriteCheck
    private var ended = false
    private var damage: AssetPackError?

    /// A sink writing into `file` from `start`, through `check`; `inflating` when the bytes are deflated;
    /// `progress`, when given, is told about every byte written.
    init(file: Descriptor, at start: UInt64, check: WriteCheck, inflating: Bool, endsStream: Bool,
         progress: ProgressTracker?) throws(AssetPackError) {
        self.file = file
        self.start = start
        self.check = check
        self.endsStream = endsStream
        self.progress = progress
        do { inflater = inflating ? try Inflater() : nil } catch { throw check.failure(error) }
    }

    deinit { buffer.deallocate() }

    func write(_ bytes: UnsafeRawBufferPointer) throws(AssetPackError) {
        guard damage == nil else { return }
        guard let inflater else { return try put(bytes) }
        var input = bytes
        while true {
            if ended {
                if !input.isEmpty { damage = streamEnd(found: "more") }
                return
            }
            let step: Inflater.Step
            do { step = try inflater.inflate(input, into: buffer) } catch {
                damage = check.failure(error)
                return
            }
            input = UnsafeRawBufferPointer(rebasing: input[step.consumed...])
            try put(UnsafeRawBufferPointer(rebasing: buffer[0..<step.produced]))
            ended = step.finished
            // zlib may hold more output when the buffer filled; otherwise it wants more input.
            if step.produced < buffer.count && (input.isEmpty || step.consumed == 0) && !ended { return }
        }
    }

    func restart() throws(AssetPackError) {
        inflater?.reset()
        check.restart()
        ended = false
        damage = nil
    }

    func finish() throws(AssetPackError) {
        if let damage { throw damage }
        if endsStream && inflater != nil && !ended { throw streamEnd(found: "none") }
        try check.finish()
    }

    /// The CRC-32 of what was written (once ``finish()`` accepted it).
    var crc32: UInt32 { check.crc32 }

    private func put(_ chunk: UnsafeRawBufferPointer) throws(AssetPackError) {
        guard !chunk.isEmpty, damage == nil else { return }
        do { try check.take(chunk) } catch {
            damage = error
            return
        }
        try io(file.fd.writeAll(chunk, at: start + check.written - UInt64(chunk.count), path: file.path))
        progress?.advance(bytes: UInt64(chunk.count))
    }

    /// The mismatch of a deflate stream that does not end where it must: `found` is what came instead.
    private func streamEnd(found: String) -> AssetPackError {
        check.failure(CheckedStream.mismatch("deflate stream", expected: "its end", found: found))
    }
}
