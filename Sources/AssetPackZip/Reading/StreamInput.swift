/// A fixed-size buffer in front of a ``ByteStream``, read front to back. Records are parsed from its
/// buffered bytes, and zlib is fed from them directly: whatever zlib leaves unconsumed when a deflate stream
/// ends stays buffered for the data descriptor and the next header (the "pushback" a forward reader needs).
/// Tracks the stream offset of every byte for error messages.
final class StreamInput {
    private let stream: any ByteStream
    private let storage: UnsafeMutableRawBufferPointer
    private var start = 0, end = 0
    /// The stream offset of the first buffered byte (of the next byte to consume).
    private(set) var offset: UInt64 = 0

    /// Buffers up to `capacity` bytes (at least 4 KiB) of `stream`.
    init(_ stream: any ByteStream, capacity: Int) {
        self.stream = stream
        self.storage = .allocate(byteCount: max(capacity, 4096), alignment: 16)
    }

    deinit { storage.deallocate() }

    /// The bytes read from the stream and not consumed yet.
    var buffered: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: storage[start..<end]) }

    /// How many bytes are buffered.
    var count: Int { end - start }

    /// Marks the first `byteCount` buffered bytes as used.
    func consume(_ byteCount: Int) {
        precondition(byteCount >= 0 && byteCount <= count, "consuming more than is buffered")
        start += byteCount
        offset += UInt64(byteCount)
    }

    /// Reads once from the stream when nothing is buffered. False when nothing is buffered and the stream ended.
    func refillIfEmpty() throws(ZipError) -> Bool {
        guard count == 0 else { return true }
        start = 0
        end = try stream.read(into: storage)
        return end > 0
    }

    /// Reads until at least `byteCount` bytes (at most the capacity) are buffered. False when the stream
    /// ends first; everything that was left is buffered then.
    func require(_ byteCount: Int) throws(ZipError) -> Bool {
        precondition(byteCount <= storage.count, "lookahead larger than the buffer")
        if count >= byteCount { return true }
        if storage.count - start < byteCount { compact() }
        while count < byteCount {
            let got = try stream.read(into: UnsafeMutableRawBufferPointer(rebasing: storage[end...]))
            if got == 0 { return false }
            end += got
        }
        return true
    }

    /// Consumes and returns the next `byteCount` bytes, however many that is; nil when the stream ends first.
    func readBytes(_ byteCount: Int) throws(ZipError) -> [UInt8]? {
        var result: [UInt8] = []
        result.reserveCapacity(byteCount)
        while result.count < byteCount {
            guard try refillIfEmpty() else { return nil }
            let taken = min(byteCount - result.count, count)
            result.append(contentsOf: buffered[0..<taken])
            consume(taken)
        }
        return result
    }

    /// Copies up to `buffer.count` bytes into `buffer` and consumes them; 0 only at the end of the stream.
    func copy(into buffer: UnsafeMutableRawBufferPointer) throws(ZipError) -> Int {
        guard buffer.count > 0, try refillIfEmpty() else { return 0 }
        let taken = min(buffer.count, count)
        buffer.baseAddress!.copyMemory(from: buffered.baseAddress!, byteCount: taken)
        consume(taken)
        return taken
    }

    /// Moves the buffered bytes to the front of the storage.
    private func compact() {
        let kept = count
        if kept > 0 { storage.baseAddress!.copyMemory(from: storage.baseAddress! + start, byteCount: kept) }
        start = 0
        end = kept
    }
}
