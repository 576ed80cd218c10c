import AssetPackZip
import CSHA256

/// SHA-256 (FIPS 180-4), dependency-free: whole 64-byte blocks are compressed straight from the caller's
/// bytes, with the CPU's SHA instructions when it has them (x86 SHA extensions: the `CSHA256` target), else
/// with the portable block function below, the reference the tests hold the fast one to.
package struct SHA256: Sendable {
    /// The working words H0…H7.
    private var state: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) =
        (0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19)
    /// Bytes of an incomplete block, fewer than 64.
    private var pending: [UInt8] = []
    private var length: UInt64 = 0
    /// Blocks go through the CPU's SHA instructions.
    private let usesHardware: Bool

    /// A hash of no bytes, computed with the CPU's SHA instructions when it has them.
    package init() { usesHardware = Self.hardwareAvailable }

    /// A hash of no bytes that never uses the CPU's SHA instructions (`portable: true`), for tests that
    /// compare the two block functions.
    package init(portable: Bool) { usesHardware = !portable && Self.hardwareAvailable }

    /// True when this CPU has the SHA instructions `CSHA256` uses.
    package static let hardwareAvailable = assetpack_sha256_hw_available() != 0

    /// Adds bytes.
    package mutating func update<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        let done: Void? = bytes.withContiguousStorageIfAvailable { update(raw: UnsafeRawBufferPointer($0)) }
        if done == nil { Array(bytes).withUnsafeBytes { update(raw: $0) } }
    }

    /// Adds the bytes of a buffer, without copying them first.
    package mutating func update(_ bytes: UnsafeRawBufferPointer) { update(raw: bytes) }

    /// Adds a string's UTF-8 bytes.
    package mutating func update(_ text: String) {
        var text = text
        text.withUTF8 { update(raw: UnsafeRawBufferPointer($0)) }
    }

    /// The digest as 64 lowercase hex digits. The hash can not be updated afterwards.
    package mutating func finalizeHex() -> String { finalize().hex }

    /// The digest. The hash can not be updated afterwards.
    package mutating func finalize() -> SHA256Digest {
        let bitLength = length * 8
        var tail: [UInt8] = [0x80]
        tail += [UInt8](repeating: 0, count: (119 - pending.count) % 64)
        tail += (0..<8).reversed().map { UInt8(truncatingIfNeeded: bitLength >> (8 * UInt64($0))) }
        update(tail)
        let words = state
        func pair(_ high: UInt32, _ low: UInt32) -> UInt64 { UInt64(high) << 32 | UInt64(low) }
        return SHA256Digest(words: pair(words.0, words.1), pair(words.2, words.3), pair(words.4, words.5), pair(words.6, words.7))
    }

    private mutating func update(raw bytes: UnsafeRawBufferPointer) {
        length += UInt64(bytes.count)
        var rest = bytes[...]
        if !pending.isEmpty || rest.count < 64 {
            let taken = min(64 - pending.count, rest.count)
            pending.append(contentsOf: UnsafeRawBufferPointer(rebasing: rest.prefix(taken)))
            rest = rest.dropFirst(taken)
            guard pending.count == 64 else { return }
            pending.withUnsafeBytes { compress($0) }
            pending.removeAll(keepingCapacity: true)
        }
        let whole = rest.count / 64 * 64
        if whole > 0 {
            compress(UnsafeRawBufferPointer(rebasing: rest.prefix(whole)))
            rest = rest.dropFirst(whole)
        }
        pending.append(contentsOf: UnsafeRawBufferPointer(rebasing: rest))
    }

    /// Whole 64-byte blocks.
    private mutating func compress(_ blocks: UnsafeRawBufferPointer) {
        if usesHardware {
            let start = blocks.baseAddress!.assumingMemoryBound(to: UInt8.self)
            withUnsafeMutableBytes(of: &state) { words in
                assetpack_sha256_compress_hw(words.baseAddress!.assumingMemoryBound(to: UInt32.self), start, blocks.count / 64)
            }
            return
        }
        var offset = 0
        while offset < blocks.count {
            compressPortable(UnsafeRawBufferPointer(rebasing: blocks[offset..<(offset + 64)]))
            offset += 64
        }
    }

    /// One 64-byte block (FIPS 180-4, 6.2.2).
    private mutating func compressPortable(_ block: UnsafeRawBufferPointer) {
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
            for i in 0..<16 {
                w[i] = UInt32(block[4 * i]) << 24 | UInt32(block[4 * i + 1]) << 16 | UInt32(block[4 * i + 2]) << 8
                    | UInt32(block[4 * i + 3])
            }
            for i in 16..<64 {
                let s0 = w[i - 15].rotatedRight(7) ^ w[i - 15].rotatedRight(18) ^ (w[i - 15] >> 3)
                let s1 = w[i - 2].rotatedRight(17) ^ w[i - 2].rotatedRight(19) ^ (w[i - 2] >> 10)
                w[i] = w[i - 16] &+ s0 &+ w[i - 7] &+ s1
            }
            var (a, b, c, d, e, f, g, h) = state
            do {
                let k = assetpack_sha256_round_constants()!  // FIPS 180-4, 4.2.2
                for i in 0..<64 {
                    let t1 = h &+ (e.rotatedRight(6) ^ e.rotatedRight(11) ^ e.rotatedRight(25)) &+ ((e & f) ^ (~e & g)) &+ k[i] &+ w[i]
                    let t2 = (a.rotatedRight(2) ^ a.rotatedRight(13) ^ a.rotatedRight(22)) &+ ((a & b) ^ (a & c) ^ (b & c))
                    (h, g, f, e, d, c, b, a) = (g, f, e, d &+ t1, c, b, a, t1 &+ t2)
                }
            }
            state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d,
                     state.4 &+ e, state.5 &+ f, state.6 &+ g, state.7 &+ h)
        }
    }
}

extension UInt32 {
    /// Masking shifts: the count is always 1...31, so no check for larger counts is needed, and the
    /// compiler makes one rotate instruction of it.
    fileprivate func rotatedRight(_ count: UInt32) -> UInt32 { (self &>> count) | (self &<< (32 &- count)) }
}
