/// How a large file is cut into content-defined chunks: where a chunk ends depends only on the 64 bytes
/// before that point (a gear hash, FastCDC's normalized chunking), never on the offset, so an insertion or a
/// deletion moves the boundaries near it only and every chunk after them comes out the same. A packed file is
/// deflated chunk by chunk (each chunk independently decodable) and the manifest lists each chunk's SHA-256,
/// so that an upgrade reuses any chunk it already holds anywhere in the old file, or in a seed, by content.
///
/// A chunk is never shorter than ``minimum`` bytes (only a file's last one may be) nor longer than ``maximum``;
/// past ``minimum`` a boundary is where the gear hash has its top `log2(average) + 2` bits clear, and past
/// ``average`` where its top `log2(average) - 2` bits are, which keeps most chunks near the average.
///
/// The gear table (256 values from SplitMix64) and the rule are part of the bundle format: a manifest names them by
/// ``name`` (`BundleManifest/Storage/chunking`), and the installer cuts the files it already holds by the same
/// rule to find what it can reuse.
public struct ContentChunking: Sendable, Hashable {
    /// Bytes a chunk has at least (the last chunk of a file excepted): a quarter of ``average``.
    public let minimum: Int
    /// Bytes a chunk has on average, a power of two.
    public let average: Int
    /// Bytes a chunk has at most: four times ``average``.
    public let maximum: Int
    /// The mask of the gear hash's bits that must be clear to end a chunk shorter than ``average``.
    let strictMask: UInt64
    /// The same past ``average``: fewer bits, so a boundary comes sooner.
    let looseMask: UInt64

    /// 64 KiB on average (16 KiB to 256 KiB), as casync's default, chosen by measurement (Tools/Benchmarks/README.md,
    /// "Content-defined chunks"): smaller chunks make smaller updates after scattered edits, larger ones deflate better.
    public static let standard = ContentChunking(averageBits: 16)!

    /// The chunking with chunks of `1 << averageBits` bytes on average; nil outside 12…24 (4 KiB to 16 MiB).
    public init?(averageBits: Int) {
        guard (12...24).contains(averageBits) else { return nil }
        average = 1 << averageBits
        minimum = average / 4
        maximum = average * 4
        strictMask = ~(UInt64.max >> UInt64(averageBits + 2))
        looseMask = ~(UInt64.max >> UInt64(averageBits - 2))
    }

    /// The chunking a manifest names `name` (``name``); nil for a name this code does not know.
    public init?(name: String) {
        let parts = name.split(separator: "/")
        guard parts.count == 2, parts[0] == "gear", let average = Int(parts[1]), average > 0, average & (average - 1) == 0,
              let chunking = ContentChunking(averageBits: average.trailingZeroBitCount), chunking.average == average
        else { return nil }
        self = chunking
    }

    /// The name a manifest records: `gear/` and ``average`` (the rest follows from it).
    public var name: String { "gear/\(average)" }

    /// The 256 random 64-bit values the gear hash adds, one per byte value: SplitMix64 from the seed
    /// `0x6173_7365_7470_616b` ("assetpak"). Part of the format: changing one moves every boundary.
    static let gear: [UInt64] = {
        var state: UInt64 = 0x6173_7365_7470_616b
        return (0..<256).map { _ in
            state &+= 0x9E37_79B9_7F4A_7C15
            var value = state
            value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
            value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
            return value ^ (value >> 31)
        }
    }()
}
