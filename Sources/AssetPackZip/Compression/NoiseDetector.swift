#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Tells data that deflate cannot shrink — already-compressed media, encrypted or random bytes — from
/// data it can, by the order-0 entropy of a sample: deflate spends as much time on such bytes as on text
/// and gains nothing, so ``BlockDeflater`` stores them instead.
///
/// The sample is four evenly spaced 4 KiB stretches (all of a small piece), the estimate is corrected for
/// the sample size (Miller–Madow), and a piece counts as noise above 7.9 bits per byte: random bytes
/// measure about 8.0, JPEG and zip data 7.9–8.0, text 4–6, PCM audio and most binary formats below 7.8.
/// Pieces under 1 KiB are never judged (too few bytes for a fair estimate). A stretch that repeats
/// within deflate's 32 KiB window would be missed; such data is rare and costs only its compression.
enum NoiseDetector {
    /// Bits per byte above which a piece is noise.
    static let threshold = 7.9
    /// The smallest piece that is judged.
    static let minimumSize = 1024

    /// True when `bytes` look incompressible.
    static func isNoise(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count >= minimumSize else { return false }
        return entropy(bytes) > threshold
    }

    /// The estimated entropy of `bytes` in bits per byte, from a sample.
    static func entropy(_ bytes: UnsafeRawBufferPointer) -> Double {
        var counts = [Int](repeating: 0, count: 256)
        var sampled = 0
        counts.withUnsafeMutableBufferPointer { counts in
            let stretch = 4096
            let stretches = bytes.count <= 4 * stretch ? [0..<bytes.count] : (0..<4).map { index -> Range<Int> in
                let start = (bytes.count - stretch) / 3 * index
                return start..<(start + stretch)
            }
            for range in stretches {
                for index in range { counts[Int(bytes[index])] += 1 }
                sampled += range.count
            }
        }
        let total = Double(sampled)
        var bits = 0.0
        var used = 0
        for count in counts where count > 0 {
            let share = Double(count) / total
            bits -= share * log2(share)
            used += 1
        }
        // Miller–Madow: a finite sample sees fewer distinct bytes than there are; correct for it.
        return bits + Double(used - 1) / (2 * total * M_LN2)
    }
}
