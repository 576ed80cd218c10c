import AssetPackSystem
import AssetPackZip

/// Where the bytes of one delivered file, or of one block of it, go: into the staging file at their offset,
/// inflated on the way when the bundle stores them deflated, counted, and hashed as they are written: SHA-256
/// when the manifest has it, CRC-32 unless the manifest has both (bytes with the manifest's SHA-256 have its
/// CRC-32: a second pass over every byte would prove nothing more). ``finish()`` accepts them only when they are exactly the expected bytes, so nothing a
/// ``BundleDelivery`` streams counts before it checked out; damage found on the way (a stream that does not
/// inflate, too many bytes) is remembered and reported there too, as ``AssetPackError/Code/verification``,
/// which makes the delivery fetch the bytes again.
///
/// Memory: one 256 KiB buffer and, for deflated data, one zlib stream, whatever the size of the file.
final class StagedFileSink: DeliverySink {
    /// What the written bytes must be.
    struct Expected {
        /// Bytes (uncompressed) the file or block has.
        var length: UInt64
        /// Their CRC-32, when known (a whole file).
        var crc32: UInt32?
        /// Their SHA-256 (hex), when the manifest has it.
        var sha256: String?
        /// Whether the data is a deflate stream that must end with its final block (a whole entry; a block
        /// but the last ends with a flush instead).
        var endsStream: Bool
    }

    private let file: Descriptor
    private let start: UInt64
    private let expected: Expected
    private let inflater: Inflater?
    private let name: String
    private let progress: ProgressTracker?
    private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 * 1024, alignment: 64)
    private var written: UInt64 = 0
    private var crc = CRC32()
    /// False when both the SHA-256 and the CRC-32 are expected: the SHA-256 is checked, the CRC-32 taken as given.
    private let computesCRC: Bool
    private let sha: any ContentHasher
    private var ended = false
    private var damage: String?

    /// A sink writing into `file` from `start`; `inflating` when the bytes are deflated; `hasher` computes
    /// their SHA-256; `name` names the file in messages; `progress`, when given, is told about every byte written.
    init(file: Descriptor, at start: UInt64, expected: Expected, inflating: Bool, hasher: any ContentHasher, name: String,
         progress: ProgressTracker?) throws(AssetPackError) {
        self.file = file
        self.sha = hasher
        self.start = start
        self.expected = expected
        self.name = name
        self.progress = progress
        computesCRC = expected.sha256 == nil || expected.crc32 == nil
        do { inflater = inflating ? try Inflater() : nil } catch { throw AssetPackError(error, path: name) }
    }

    deinit { buffer.deallocate() }

    func write(_ bytes: UnsafeRawBufferPointer) throws(AssetPackError) {
        guard damage == nil else { return }
        guard let inflater else { return try put(bytes) }
        var input = bytes
        while true {
            if ended {
                if !input.isEmpty { damage = "more data follows the end of the deflate stream" }
                return
            }
            let step: Inflater.Step
            do { step = try inflater.inflate(input, into: buffer) } catch {
                damage = error.message
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
        written = 0
        crc = CRC32()
        _ = sha.finalizeHex()  // starts over
        ended = false
        damage = nil
    }

    func finish() throws(AssetPackError) {
        if let damage { throw refuse(damage) }
        if expected.endsStream && inflater != nil && !ended { throw refuse("the deflate stream does not end") }
        guard written == expected.length else { throw refuse("\(written) bytes, expected \(expected.length)") }
        if computesCRC, let wanted = expected.crc32, crc.value != wanted { throw refuse("CRC-32 \(hex(crc.value)), expected \(hex(wanted))") }
        if let wanted = expected.sha256 {
            let found = sha.finalizeHex()
            guard found == wanted else { throw refuse("SHA-256 \(found), expected \(wanted)") }
        }
    }

    /// The CRC-32 of what was written (once ``finish()`` accepted it): computed, or the expected one when the
    /// SHA-256 vouched for the bytes.
    var crc32: UInt32 { computesCRC ? crc.value : expected.crc32 ?? crc.value }

    private func put(_ chunk: UnsafeRawBufferPointer) throws(AssetPackError) {
        guard !chunk.isEmpty else { return }
        guard written + UInt64(chunk.count) <= expected.length else {
            damage = "more than the \(expected.length) bytes expected"
            return
        }
        if computesCRC { crc.update(chunk) }
        if expected.sha256 != nil { sha.update(chunk) }
        try io(file.fd.writeAll(chunk, at: start + written, path: file.path))
        written += UInt64(chunk.count)
        progress?.advance(bytes: UInt64(chunk.count))
    }

    private func refuse(_ reason: String) -> AssetPackError {
        AssetPackError(.verification, "delivered bytes \(start)..<\(start + expected.length) do not check out: \(reason)", path: name)
    }
}
