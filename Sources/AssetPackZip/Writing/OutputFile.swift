import AssetPackSystem

/// A buffered, append-only file that can patch bytes it wrote earlier (a local header whose sizes are known
/// only after the data): patches land in the buffer when the bytes are still there, else with `pwrite`.
final class OutputFile: ZipOutput {
    let descriptor: FileDescriptor
    let path: String
    private let ownsDescriptor: Bool
    private var buffer: UnsafeMutableRawBufferPointer
    private var buffered = 0
    /// File offset of buffer[0].
    private var flushedUpTo: UInt64

    /// Bytes written so far (the offset of the next byte).
    var position: UInt64 { flushedUpTo + UInt64(buffered) }

    init(descriptor: FileDescriptor, path: String, startOffset: UInt64 = 0, ownsDescriptor: Bool, bufferSize: Int = 1 << 20) {
        self.descriptor = descriptor
        self.path = path
        self.ownsDescriptor = ownsDescriptor
        self.flushedUpTo = startOffset
        self.buffer = .allocate(byteCount: bufferSize, alignment: 16)
    }

    /// Creates (or truncates) `path`.
    convenience init(creating path: String, mode: UInt32 = 0o644) throws(ZipError) {
        let fd = try io(FileDescriptor.open(path, [.writeOnly, .create, .truncate], permissions: mode))
        self.init(descriptor: fd, path: path, ownsDescriptor: true)
    }

    deinit {
        buffer.deallocate()
        if ownsDescriptor { descriptor.close() }
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws(ZipError) {
        // An empty buffer may have no base address at all.
        guard bytes.count > 0 else { return }
        if bytes.count > buffer.count - buffered { try flush() }
        if bytes.count >= buffer.count {
            try io(descriptor.writeAll(bytes, path: path))
            flushedUpTo += UInt64(bytes.count)
            return
        }
        (buffer.baseAddress! + buffered).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
        buffered += bytes.count
    }

    /// Overwrites bytes at `offset`, which must be before ``position``.
    func patch(_ bytes: [UInt8], at offset: UInt64) throws(ZipError) {
        guard !bytes.isEmpty else { return }
        if offset >= flushedUpTo {
            let start = Int(offset - flushedUpTo)
            bytes.withUnsafeBytes { (buffer.baseAddress! + start).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        } else if offset + UInt64(bytes.count) <= flushedUpTo {
            try bytes.withRawBytes { (raw) throws(ZipError) in try io(descriptor.writeAll(raw, at: offset, path: path)) }
        } else {
            try flush()
            try patch(bytes, at: offset)
        }
    }

    func flush() throws(ZipError) {
        guard buffered > 0 else { return }
        try io(descriptor.writeAll(UnsafeRawBufferPointer(rebasing: buffer[0..<buffered]), path: path))
        flushedUpTo += UInt64(buffered)
        buffered = 0
    }

    func sync() throws(ZipError) {
        try flush()
        try io(descriptor.sync(path: path))
    }
}
