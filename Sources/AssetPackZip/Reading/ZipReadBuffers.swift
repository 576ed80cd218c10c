/// What one thread reuses across the entries it reads one after another: the buffer compressed bytes are
/// read into and the zlib stream (whose state and 32 KiB window are then allocated once, not per entry).
/// A reader opened with ``ZipArchive/open(_:buffers:)`` borrows them until it is released; a reader opened
/// while they are lent out allocates its own, so sharing them is never wrong, only slower.
///
/// With the buffers, a small entry costs one `pread`, and entries read in archive order share one `pread`
/// per input buffer (a pack archive of small files is read in 256 KiB reads).
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
    /// What `input` holds from an earlier read: `count` bytes of `archive` from `offset`.
    private var window: (archive: ZipArchive, offset: UInt64, count: Int)?
    /// Where the data of the entry read last ended.
    private var lastEnd: (archive: ZipArchive, offset: UInt64)?

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

    /// Where the `count` bytes of `archive` at `offset` are in `input`, when an earlier read left them there.
    func cached(_ archive: ZipArchive, at offset: UInt64, count: Int) -> Int? {
        guard let window, window.archive === archive, offset >= window.offset,
              offset - window.offset + UInt64(count) <= UInt64(window.count) else { return nil }
        return Int(offset - window.offset)
    }

    /// True when an entry at `offset` follows the one read last from `archive` (a data descriptor, at most
    /// 24 bytes, may be between them).
    func follows(_ archive: ZipArchive, at offset: UInt64) -> Bool {
        guard let lastEnd, lastEnd.archive === archive, offset >= lastEnd.offset else { return false }
        return offset - lastEnd.offset <= 24
    }

    /// Notes that `input` now holds `count` bytes of `archive` from `offset`.
    func remember(_ archive: ZipArchive, offset: UInt64, count: Int) { window = (archive, offset, count) }

    /// Notes that `input` was overwritten otherwise.
    func forgetWindow() { window = nil }

    /// Notes where the data of the entry being read ends.
    func noteEnd(_ archive: ZipArchive, at offset: UInt64) { lastEnd = (archive, offset) }
}
