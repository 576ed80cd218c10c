/// Tells data that deflate cannot shrink — already-compressed media, encrypted or random bytes — from
/// data it can: deflate spends as much time on such bytes as on text and gains nothing, so
/// ``BlockDeflater`` stores them instead.
///
/// The test is how often two bytes of four evenly spaced 4 KiB samples are equal: 1/256 for random bytes,
/// ten to twenty times that for text; at most 1.072/256 is noise (Rényi entropy ≥ 7.9 bits a byte). Integer
/// arithmetic only, so the verdict — and the compressed bytes — are the same on every platform.
enum NoiseDetector {
    /// The smallest piece that is judged.
    static let minimumSize = 1024
    /// Noise: the chance of two equal bytes is at most `limitNumerator / limitDenominator` (= 2^-7.9).
    static let limitNumerator = 1072
    static let limitDenominator = 256_000

    /// True when `bytes` look incompressible.
    static func isNoise(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count >= minimumSize else { return false }
        let (pairs, equalPairs) = collisions(bytes)
        return equalPairs * limitDenominator <= pairs * limitNumerator
    }

    /// From a sample of `bytes`: the number of ordered pairs of distinct positions, and how many of those
    /// hold equal bytes (their ratio estimates the chance that two bytes are equal, without bias).
    static func collisions(_ bytes: UnsafeRawBufferPointer) -> (pairs: Int, equalPairs: Int) {
        var counts = [Int](repeating: 0, count: 256)
        var sampled = 0
        counts.withUnsafeMutableBufferPointer { counts in
            for range in sampleRanges(count: bytes.count) {
                for index in range { counts[Int(bytes[index])] += 1 }
                sampled += range.count
            }
        }
        return (sampled * (sampled - 1), counts.reduce(0) { $0 + $1 * ($1 - 1) })
    }

    /// Four evenly spaced 4 KiB stretches, or everything when that is not more.
    private static func sampleRanges(count: Int) -> [Range<Int>] {
        let stretch = 4096
        guard count > 4 * stretch else { return [0..<count] }
        return (0..<4).map { index in
            let start = (count - stretch) / 3 * index
            return start..<(start + stretch)
        }
    }
}
