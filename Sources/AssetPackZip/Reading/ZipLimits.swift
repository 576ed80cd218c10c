/// Bounds a reader applies to an archive it did not make. Exceeding one is a ``ZipError`` with code
/// ``ZipError/Code/limitExceeded`` that names the limit, so a caller can raise it deliberately.
public struct ZipLimits: Sendable, Hashable {
    /// The most entries the central directory may hold. Default 1,000,000.
    public var maxEntries: Int
    /// The most bytes all entries may declare together, uncompressed. Default 64 GiB.
    public var maxTotalUncompressedSize: UInt64
    /// The largest uncompressed/compressed ratio an entry may reach once it is past
    /// ``ratioGraceSize`` bytes. Default 1,000 (deflate's own ceiling is about 1,032). `nil` turns it off.
    public var maxCompressionRatio: Double?
    /// Output below this many bytes is never judged by ratio. Default 1 MiB.
    public var ratioGraceSize: UInt64

    /// Limits with the documented defaults.
    public init(maxEntries: Int = 1_000_000, maxTotalUncompressedSize: UInt64 = 64 << 30,
                maxCompressionRatio: Double? = 1_000, ratioGraceSize: UInt64 = 1 << 20) {
        self.maxEntries = maxEntries
        self.maxTotalUncompressedSize = maxTotalUncompressedSize
        self.maxCompressionRatio = maxCompressionRatio
        self.ratioGraceSize = ratioGraceSize
    }

    /// The defaults.
    public static let `default` = ZipLimits()
    /// No limits at all: for archives you made yourself.
    public static let unlimited = ZipLimits(maxEntries: .max, maxTotalUncompressedSize: .max,
                                            maxCompressionRatio: nil, ratioGraceSize: .max)
}

extension ZipLimits {
    /// Refuses `output` bytes inflated from `input` compressed bytes when that passes
    /// ``maxCompressionRatio`` (output below ``ratioGraceSize`` is never judged). The readers check it as
    /// they inflate; a caller may check an entry's declared sizes before reading any byte.
    /// - Throws: ``ZipError/Code/limitExceeded`` naming the limit.
    public func checkRatio(output: UInt64, input: UInt64) throws(ZipError) {
        guard let ratio = maxCompressionRatio, output > ratioGraceSize else { return }
        if Double(output) > ratio * Double(max(input, 1)) {
            throw ZipError(.limitExceeded, "compression ratio exceeds the limit of \(Int(ratio)):1")
        }
    }
}
