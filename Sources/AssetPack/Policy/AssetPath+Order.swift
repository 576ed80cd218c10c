import AssetPackSystem

extension AssetPath {
    /// Equal when the bytes are equal: two Unicode spellings of "café" are different files on most file
    /// systems, so they are different paths here (Swift's `String ==` would call them equal).
    public static func == (lhs: AssetPath, rhs: AssetPath) -> Bool {
        Memory.sameBytes(lhs.string, rhs.string)
    }

    /// Hashes the UTF-8 bytes, consistent with ``==(_:_:)``.
    public func hash(into hasher: inout Hasher) {
        withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }

    /// Orders by UTF-8 bytes, component by component (a stable, locale-free order): the order of the
    /// bytes with each `/` read as the lowest byte (so a component sorts before its own extensions, and a
    /// path before the paths below it).
    public static func < (lhs: AssetPath, rhs: AssetPath) -> Bool {
        lhs.withUTF8 { left in rhs.withUTF8 { right in precedes(left, right) } }
    }

    /// Calls `body` with the UTF-8 bytes of ``string``, without copying them.
    package func withUTF8<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        if let result = try string.utf8.withContiguousStorageIfAvailable(body) { return result }
        var copy = string  // a bridged string, never one this package made
        return try copy.withUTF8(body)
    }

    /// True when the UTF-8 path `left` sorts before `right`, as ``<(_:_:)`` orders them.
    static func precedes(_ left: [UInt8], _ right: [UInt8]) -> Bool {
        left.withUnsafeBufferPointer { a in right.withUnsafeBufferPointer { b in precedes(a, b) } }
    }

    /// True when the path `left` sorts before `right`: their first differing byte decides, a `/` being the
    /// lowest; else the shorter, a prefix, comes first.
    /// - Complexity: O(*n*) in the length of the common prefix, compared eight bytes at a time.
    static func precedes(_ left: UnsafeBufferPointer<UInt8>, _ right: UnsafeBufferPointer<UInt8>) -> Bool {
        let common = min(left.count, right.count)
        var index = 0
        if common >= 8 {
            let a = UnsafeRawPointer(left.baseAddress!), b = UnsafeRawPointer(right.baseAddress!)
            while index + 8 <= common
                && a.loadUnaligned(fromByteOffset: index, as: UInt64.self) == b.loadUnaligned(fromByteOffset: index, as: UInt64.self) {
                index += 8
            }
        }
        while index < common && left[index] == right[index] { index += 1 }
        guard index < common else { return left.count < right.count }
        return orderByte(left[index]) < orderByte(right[index])
    }

    /// A byte of a path as it sorts: `/` as zero.
    private static func orderByte(_ byte: UInt8) -> UInt8 { byte == slash ? 0 : byte }
}
