/// MurmurHash64A (Austin Appleby, public domain): a fast 64-bit hash of bytes, not a cryptographic one.
/// Two seeds give two independent hashes: the order-independent ``TreeIdentity`` sums them, and
/// ``RecordedPaths`` keys an install record's folders by one.
enum MurmurHash64A {
    /// The hash of `bytes` with `seed`.
    static func hash(_ bytes: UnsafeRawBufferPointer, seed: UInt64) -> UInt64 {
        let multiplier: UInt64 = 0xC6A4_A793_5BD1_E995
        var h = seed ^ (UInt64(bytes.count) &* multiplier)
        var offset = 0
        while offset + 8 <= bytes.count {
            var k = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            k &*= multiplier
            k ^= k >> 47
            k &*= multiplier
            h ^= k
            h &*= multiplier
            offset += 8
        }
        if offset < bytes.count {
            var tail: UInt64 = 0
            for index in (offset..<bytes.count).reversed() { tail = tail << 8 | UInt64(bytes[index]) }
            h ^= tail
            h &*= multiplier
        }
        h ^= h >> 47
        h &*= multiplier
        h ^= h >> 47
        return h
    }
}
