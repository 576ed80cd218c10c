import AssetPackSystem

/// Overlaps decoding and writing for one large file: the calling thread decodes (and checks) into one of a
/// few buffers while a helper thread writes the filled ones at their offsets (`pwrite`), so a long deflate
/// stream that nothing can split costs about the longer of the two, not their sum.
///
/// Writes go by offset, so whoever is free writes the oldest filled buffer: when every buffer is full the
/// decoding thread writes one itself instead of waiting, and if the helper thread cannot start it writes
/// them all (no wait can hang on a thread that is not there). The first write error stops the file.
/// Memory: ``bufferCount`` × ``bufferSize`` while the file is written.
final class WriteBehind: @unchecked Sendable {
    /// Files at least this large are written behind; for smaller ones a thread costs more than it saves.
    static let minimumSize: UInt64 = 8 << 20
    /// Bytes of each buffer.
    static let bufferSize = 1 << 20
    /// Buffers in flight: one being decoded into, one being written, one waiting.
    static let bufferCount = 3

    private let file: Descriptor
    private let buffers: [UnsafeMutableRawBufferPointer]
    private let written: @Sendable (_ count: Int, _ end: UInt64) -> Void
    private let monitor = Monitor()
    // Guarded by `monitor`:
    private var free: [Int]
    private var filled: [(buffer: Int, offset: UInt64, count: Int)] = []
    private var writing = 0
    private var decodingEnded = false
    private var failure: AssetPackError?

    private init(file: Descriptor, written: @escaping @Sendable (Int, UInt64) -> Void) {
        self.file = file
        self.written = written
        buffers = (0..<Self.bufferCount).map { _ in .allocate(byteCount: Self.bufferSize, alignment: 64) }
        free = Array(buffers.indices)
    }

    deinit { for buffer in buffers { buffer.deallocate() } }

    /// Writes into `file` (from its start) what `next` puts into the buffer it is given, until it puts
    /// nothing; `written(count, end)` is called after each write, on either thread.
    static func write(into file: Descriptor, written: @escaping @Sendable (_ count: Int, _ end: UInt64) -> Void,
                      next: (UnsafeMutableRawBufferPointer) throws(AssetPackError) -> Int) throws(AssetPackError) {
        let pipe = WriteBehind(file: file, written: written)
        try WorkerThreads.withHelpers(1, helper: { _ in pipe.writeUntilEnded() }) { () throws(AssetPackError) in
            defer { pipe.endDecoding() }
            try pipe.decode(next)
        }
        if let failure = pipe.monitor.withLock({ pipe.failure }) { throw failure }
    }

    /// The decoding side: fills buffers in turn and queues them; writes the oldest itself when none is free.
    private func decode(_ next: (UnsafeMutableRawBufferPointer) throws(AssetPackError) -> Int) throws(AssetPackError) {
        var offset: UInt64 = 0
        while true {
            let index = try takeFreeBuffer()
            let count = try next(buffers[index])
            monitor.withLock {
                if count == 0 { free.append(index) } else { filled.append((index, offset, count)) }
                monitor.broadcast()
            }
            if count == 0 { break }
            offset += UInt64(count)
        }
        // Whatever is still queued is written here if the helper is not taking it.
        while let job = monitor.withLock({ () -> (buffer: Int, offset: UInt64, count: Int)? in
            while filled.isEmpty && writing > 0 && failure == nil { monitor.wait() }
            return failure == nil && !filled.isEmpty ? claimFilled() : nil
        }) {
            write(job)
        }
        if let failure = monitor.withLock({ failure }) { throw failure }
    }

    /// A free buffer: one the writer gave back, or the oldest filled one, written now on this thread.
    private func takeFreeBuffer() throws(AssetPackError) -> Int {
        while true {
            let (index, job, stop) = monitor.withLock { () -> (Int?, (buffer: Int, offset: UInt64, count: Int)?, AssetPackError?) in
                if let failure { return (nil, nil, failure) }
                if let index = free.popLast() { return (index, nil, nil) }
                if !filled.isEmpty { return (nil, claimFilled(), nil) }
                monitor.wait()  // every buffer is being written: one comes back soon
                return (nil, nil, nil)
            }
            if let stop { throw stop }
            if let index { return index }
            if let job { write(job) }
        }
    }

    /// The helper thread: writes filled buffers until decoding ended and none is left.
    private func writeUntilEnded() {
        while let job = monitor.withLock({ () -> (buffer: Int, offset: UInt64, count: Int)? in
            while filled.isEmpty && !decodingEnded && failure == nil { monitor.wait() }
            return failure == nil && !filled.isEmpty ? claimFilled() : nil
        }) {
            write(job)
        }
    }

    /// Under the lock: the oldest filled buffer, now being written.
    private func claimFilled() -> (buffer: Int, offset: UInt64, count: Int) {
        writing += 1
        return filled.removeFirst()
    }

    /// Writes one filled buffer at its offset and gives it back (or records the failure).
    private func write(_ job: (buffer: Int, offset: UInt64, count: Int)) {
        let bytes = UnsafeRawBufferPointer(rebasing: buffers[job.buffer][0..<job.count])
        var error: AssetPackError?
        do throws(SystemError) {
            try file.fd.writeAll(bytes, at: job.offset, path: file.path)
        } catch let failed {
            error = AssetPackError(failed)
        }
        if error == nil { written(job.count, job.offset + UInt64(job.count)) }
        monitor.withLock {
            writing -= 1
            free.append(job.buffer)
            if let error, failure == nil { failure = error }
            monitor.broadcast()
        }
    }

    private func endDecoding() {
        monitor.withLock {
            decodingEnded = true
            monitor.broadcast()
        }
    }
}
