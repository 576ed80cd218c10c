/// A bounds-checked little-endian reader over a byte buffer: the only code that turns archive bytes into
/// integers. Every read returns nil instead of trapping when the buffer is too short.
struct ByteCursor {
    private let bytes: [UInt8]
    /// The index of the next byte to read.
    private(set) var position: Int
    /// The index past the last byte this cursor may read.
    let end: Int

    /// A cursor over `bytes` from `position` to `end` (the whole array when nil), which shares the
    /// array's storage: reading a record inside a large buffer copies nothing.
    init(_ bytes: [UInt8], position: Int = 0, end: Int? = nil) {
        self.bytes = bytes
        self.position = position
        self.end = min(end ?? bytes.count, bytes.count)
    }

    /// How many bytes are left after ``position``.
    var remaining: Int { end - position }

    /// Reads an unsigned little-endian integer of `T`'s width and advances.
    mutating func read<T: FixedWidthInteger & UnsignedInteger>(_: T.Type = T.self) -> T? {
        let width = MemoryLayout<T>.size
        guard remaining >= width else { return nil }
        // One unaligned load (the range was checked just above), not a loop of checked byte reads.
        let value = bytes.withUnsafeBytes { T(littleEndian: $0.loadUnaligned(fromByteOffset: position, as: T.self)) }
        position += width
        return value
    }

    /// Reads `count` bytes and advances.
    mutating func readBytes(_ count: Int) -> [UInt8]? {
        guard count >= 0, remaining >= count else { return nil }
        defer { position += count }
        return Array(bytes[position..<position + count])
    }

    /// Skips `count` bytes; false when fewer are left.
    mutating func skip(_ count: Int) -> Bool {
        guard count >= 0, remaining >= count else { return false }
        position += count
        return true
    }
}

/// Appends little-endian fields to a byte array: the only code that turns integers into archive bytes.
struct ByteWriter {
    /// The bytes written so far.
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 64) { bytes.reserveCapacity(capacity) }

    /// Appends `value` in little-endian order.
    mutating func write<T: FixedWidthInteger & UnsignedInteger>(_ value: T) {
        for index in 0..<MemoryLayout<T>.size {
            bytes.append(UInt8(truncatingIfNeeded: value >> (8 * index)))
        }
    }

    /// Appends raw bytes.
    mutating func write(_ data: [UInt8]) { bytes.append(contentsOf: data) }

    /// Appends `count` zero bytes.
    mutating func writeZeros(_ count: Int) { bytes.append(contentsOf: repeatElement(0, count: count)) }
}
