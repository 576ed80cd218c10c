/// What one thread reuses across the entries it reads one after another: the buffer compressed bytes are
/// read into and the zlib stream (whose state and 32 KiB window are then allocated once, not per entry).
/// A reader opened with ``ZipArchive/open(_:buffers:)`` borrows them until it is released; a reader opened
/// while they are lent out allocates its own, so sharing them is never wrong, only slower.
///
/// With the buffers, a small entry (local header and data within the input buffer) costs one `pread`.
///
/// ```swift
/// let buffers = ZipReadBuffers()              // one per worker thread
/// for entry in archive.entries where entry.kind == .file {
///     let reader = try archive.open(entry, buffers: buffers)
///     ...
/// }
/// ```
///
/// Not thread-safe: keep one per thread.
public final class ZipReadBuffers {
    /// The compressed-input buffer.
    let input: UnsafeMutableRawBufferPointer
    private var inflater: Inflater?
    private var lent = false

    /// Buffers with an input buffer of `inputSize` bytes (at least 4 KiB).
    public init(inputSize: Int = 256 * 1024) {
        input = .allocate(byteCount: max(inputSize, 4096), alignment: 16)
    }

    deinit { input.deallocate() }

    /// Lends the buffers out, with a reset inflater when `inflating`; nil while they are lent out.
    func borrow(inflating: Bool) throws(ZipError) -> Inflater?? {
        guard !lent else { return nil }
        var lentInflater: Inflater?
        if inflating {
            if let inflater { inflater.reset() } else { inflater = try Inflater() }
            lentInflater = inflater
        }
        lent = true
        return .some(lentInflater)
    }

    /// Takes the buffers back.
    func giveBack() { lent = false }
}
