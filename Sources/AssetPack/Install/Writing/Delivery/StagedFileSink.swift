import AssetPackSystem
import AssetPackZip

/// Where the bytes of one delivered file, or of a run of its chunks, go: into the staging file at their offsets
/// (one segment per chunk, each following the one before in the file), inflated on the way when the bundle stores
/// them deflated — a run of chunks chunk by chunk, each decoded whole once its compressed bytes are in
/// (``PieceInflater``), a whole file as one stream in the inflater's pieces — and passed through each segment's
/// ``WriteCheck`` as they are written; a segment that checks out is reported at once (`segmentDone`: a journal records
/// its chunk). ``finish()`` accepts the bytes only when every check does; damage found on the way (bytes that do not
/// inflate, too many bytes) is reported there too, as ``AssetPackError/Code/verification``, which makes the delivery
/// fetch the bytes again.
/// Memory: one 256 KiB buffer and one inflater; for chunks, a chunk's compressed bytes and what it makes.
final class StagedFileSink: DeliverySink {
    /// Where one segment of the output goes, how long it is, and its check.
    struct Segment {
        let start: UInt64
        let size: UInt64
        var check: WriteCheck
    }

    /// How the bytes arrive.
    enum Encoding {
        /// As they are to be written.
        case stored
        /// One deflate stream, decoded as it arrives; `endsStream`: it must end with its final block (a whole entry,
        /// or a run of chunks that ends the file; other runs end with a flush instead).
        case deflated(endsStream: Bool)
        /// One deflate piece for each segment, of these compressed lengths (chunks), each decoded once all of it
        /// arrived; `endsStream`: the last one ends the stream.
        case deflatedPieces([Int], endsStream: Bool)
    }

    /// A piece larger than this (a block of a fixed-size index) is decoded as a stream instead: the sink's memory stays small.
    static let largestPiece = 1 << 20

    private let file: Descriptor
    private var segments: [Segment]
    /// The segment the next output bytes belong to.
    private var current = 0
    private let segmentDone: (Int) throws(AssetPackError) -> Void
    private let inflater: Inflater?
    /// Whether the data is a deflate stream that must end with its final block.
    private let endsStream: Bool
    private let progress: ProgressTracker?
    private let buffer: UnsafeMutableRawBufferPointer
    private var ended = false
    private var damage: AssetPackError?
    /// With pieces: their decoder and compressed lengths, the compressed bytes of the one arriving (with room for the
    /// decoder's trailer) and how many are in, and the piece it is.
    private let pieces: (decoder: PieceInflater, lengths: [Int], input: UnsafeMutableRawBufferPointer)?
    private var pieceFilled = 0
    private var piece = 0

    /// A sink writing `segments` of `file` in order, each through its check, the bytes arriving as `encoding` says;
    /// `progress`, when given, is told about every byte written; `segmentDone` of each segment that checked out.
    init(file: Descriptor, segments: [Segment], encoding: Encoding, progress: ProgressTracker?,
         segmentDone: @escaping (Int) throws(AssetPackError) -> Void = { _ in }) throws(AssetPackError) {
        precondition(!segments.isEmpty, "a sink writes at least one segment")
        self.file = file
        self.segments = segments
        self.progress = progress
        self.segmentDone = segmentDone
        var encoding = encoding
        if case .deflatedPieces(let lengths, let ends) = encoding,
           lengths.contains(where: { $0 > Self.largestPiece }) || segments.contains(where: { $0.size > UInt64(Self.largestPiece) }) {
            encoding = .deflated(endsStream: ends)
        }
        do {
            switch encoding {
            case .stored:
                (inflater, endsStream, pieces) = (nil, false, nil)
                buffer = .allocate(byteCount: 0, alignment: 64)
            case .deflated(let ends):
                (inflater, endsStream, pieces) = (try Inflater(), ends, nil)
                buffer = .allocate(byteCount: 256 * 1024, alignment: 64)
            case .deflatedPieces(let lengths, let ends):
                precondition(lengths.count == segments.count, "one piece for each segment")
                let input = UnsafeMutableRawBufferPointer.allocate(byteCount: lengths.max()! + PieceInflater.trailerRoom, alignment: 64)
                (inflater, endsStream, pieces) = (nil, ends, (try PieceInflater(), lengths, input))
                buffer = .allocate(byteCount: Int(segments.map(\.size).max()!), alignment: 64)
            }
        } catch {
            throw segments[0].check.failure(error)
        }
    }

    /// A sink writing into `file` from `start`, through `check` (of `size` bytes): one segment.
    convenience init(file: Descriptor, at start: UInt64, size: UInt64, check: WriteCheck, encoding: Encoding,
                     progress: ProgressTracker?) throws(AssetPackError) {
        try self.init(file: file, segments: [Segment(start: start, size: size, check: check)], encoding: encoding, progress: progress)
    }

    deinit {
        buffer.deallocate()
        pieces?.input.deallocate()
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws(AssetPackError) {
        guard damage == nil else { return }
        if let pieces { return try gather(bytes, into: pieces) }
        guard let inflater else { return try put(bytes, writing: true) }
        var input = bytes
        while true {
            if ended {
                if !input.isEmpty { damage = streamEnd(found: "more") }
                return
            }
            let step: Inflater.Step
            do { step = try inflater.inflate(input, into: buffer) } catch {
                damage = segments[min(current, segments.count - 1)].check.failure(error)
                return
            }
            input = UnsafeRawBufferPointer(rebasing: input[step.consumed...])
            try put(UnsafeRawBufferPointer(rebasing: buffer[0..<step.produced]), writing: true)
            ended = step.finished
            // zlib may hold more output when the buffer filled; otherwise it wants more input.
            if step.produced < buffer.count && (input.isEmpty || step.consumed == 0) && !ended { return }
        }
    }

    /// Takes `bytes`, which the file already holds where they go (its staging file is a clone of the version they
    /// come from), through the checks without writing them. Only for a sink that does not inflate.
    func accept(inPlace bytes: UnsafeRawBufferPointer) throws(AssetPackError) {
        precondition(inflater == nil && pieces == nil, "bytes in place are the file's own, never deflated")
        guard damage == nil else { return }
        try put(bytes, writing: false)
    }

    /// Adds `bytes` to the piece arriving, and decodes and writes each piece they complete.
    private func gather(_ bytes: UnsafeRawBufferPointer, into pieces: (decoder: PieceInflater, lengths: [Int], input: UnsafeMutableRawBufferPointer))
        throws(AssetPackError) {
        var rest = bytes
        while !rest.isEmpty, damage == nil {
            guard piece < pieces.lengths.count else {
                damage = streamEnd(found: "more")
                return
            }
            let taken = min(pieces.lengths[piece] - pieceFilled, rest.count)
            UnsafeMutableRawBufferPointer(rebasing: pieces.input[pieceFilled..<(pieceFilled + taken)])
                .copyMemory(from: UnsafeRawBufferPointer(rebasing: rest[0..<taken]))
            pieceFilled += taken
            rest = UnsafeRawBufferPointer(rebasing: rest[taken...])
            if pieceFilled == pieces.lengths[piece] { try decodePiece(with: pieces.decoder, input: pieces.input) }
        }
    }

    /// Decodes the piece that has all its bytes in `input` into its segment.
    private func decodePiece(with decoder: PieceInflater, input: UnsafeMutableRawBufferPointer) throws(AssetPackError) {
        let size = Int(segments[piece].size), final = endsStream && piece == segments.count - 1
        let outcome: PieceInflater.Outcome
        do {
            outcome = try decoder.inflate(input, piece: 0..<pieceFilled, final: final,
                                          into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<size]))
        } catch {
            damage = segments[piece].check.failure(error)
            return
        }
        guard outcome == .made(size) else {
            let found = switch outcome {
            case .made(let count): "\(count) bytes"
            case .tooLong: "more bytes"
            case .endsStreamEarly: "the end of the deflate stream"
            case .missingFinalBlock: "no end of the deflate stream"
            case .unusedBytes: "bytes after the end of the deflate stream"
            }
            damage = segments[piece].check.failure(CheckedStream.mismatch("chunk", expected: "\(size) bytes, decoded from all of its \(pieceFilled) compressed bytes", found: found))
            return
        }
        pieceFilled = 0
        piece += 1
        try put(UnsafeRawBufferPointer(rebasing: buffer[0..<size]), writing: true)
    }

    func restart() throws(AssetPackError) {
        pieceFilled = 0
        piece = 0
        inflater?.reset()
        for index in segments.indices { segments[index].check.restart() }
        current = 0
        ended = false
        damage = nil
    }

    func finish() throws(AssetPackError) {
        if let damage { throw damage }
        if endsStream && inflater != nil && !ended { throw streamEnd(found: "none") }
        if let pieces, piece < pieces.lengths.count {
            throw segments[piece].check.failure(CheckedStream.mismatch("chunk", expected: "\(pieces.lengths[piece]) compressed bytes",
                                                                       found: "\(pieceFilled)"))
        }
        while current < segments.count {  // a segment still short (or empty) fails, or passes, its own check here
            _ = try segments[current].check.finish()
            try segmentDone(current)
            current += 1
        }
    }

    /// The CRC-32 of what was written to the first segment (once ``finish()`` accepted it).
    var crc32: UInt32 { segments[0].check.crc32 }

    /// Checks output bytes against the segments they belong to and writes them in one piece (the segments follow
    /// each other in the file) unless they are there already (not `writing`), then reports the segments they completed.
    private func put(_ chunk: UnsafeRawBufferPointer, writing: Bool) throws(AssetPackError) {
        var rest = chunk, completed: [Int] = []
        let at = segments[min(current, segments.count - 1)].start + segments[min(current, segments.count - 1)].check.written
        while !rest.isEmpty, damage == nil {
            guard current < segments.count else {  // more than the last segment holds: its check says so
                do { try segments[segments.count - 1].check.take(rest) } catch { damage = error }
                if damage == nil { damage = segments[segments.count - 1].check.failure(CheckedStream.mismatch("data", expected: "its end", found: "more")) }
                break
            }
            let room = segments[current].size - min(segments[current].size, segments[current].check.written)
            let piece = UnsafeRawBufferPointer(rebasing: rest[..<(room == 0 ? rest.count : Int(min(UInt64(rest.count), room)))])
            do { try segments[current].check.take(piece) } catch {
                damage = error
                break
            }
            rest = UnsafeRawBufferPointer(rebasing: rest[piece.count...])
            if segments[current].check.written == segments[current].size {
                do { _ = try segments[current].check.finish() } catch {
                    damage = error
                    break
                }
                completed.append(current)
                current += 1
            }
        }
        let accepted = UnsafeRawBufferPointer(rebasing: chunk[..<(chunk.count - rest.count)])
        guard !accepted.isEmpty else { return }
        if writing { try io(file.fd.writeAll(accepted, at: at, path: file.path)) }
        progress?.advance(bytes: UInt64(accepted.count))
        for index in completed { try segmentDone(index) }
    }

    /// The mismatch of a deflate stream that does not end where it must: `found` is what came instead.
    private func streamEnd(found: String) -> AssetPackError {
        segments[min(current, segments.count - 1)].check.failure(CheckedStream.mismatch("deflate stream", expected: "its end", found: found))
    }
}
