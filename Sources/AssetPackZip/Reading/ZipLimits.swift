/// Bounds a reader applies to an archive it did not make. Exceeding one is a ``ZipError`` with code
/// ``ZipError/Code/limitExceeded`` that names the limit, so a caller can raise it deliberately.
public struct ZipLimits: Sendable, Hashable {
    /// The most entries the central directory may hold. Default 1,000,000.
    public var maxEntries: Int
    /// The most bytes all entries may declare together, uncompressed. Default 64 GiB.
    public var maxTotalUncompressedSize: UInt64
    /// The largest uncompressed/compressed ratio an entry may reach once it is past
    /// ``ratioGraceSize`` bytes. `nil` turns it off.
    ///
    /// Default 1,032, deflate's own ceiling (``deflateMaxRatio``), so no genuine entry is ever refused:
    /// a file of one repeated byte deflates at about 1,030:1 (zlib at levels 6–9), and a 2 MiB preallocated
    /// database or blank image is a legitimate asset. What the default refuses is an entry whose *declared*
    /// sizes claim more than any deflate stream can give — sizes that lie. Bombs are bounded by the other
    /// checks: a reader never yields more than the declared size, entries may not share bytes, and the
    /// declared sizes of an archive count against ``maxTotalUncompressedSize``. Set a lower ratio to refuse
    /// genuine but suspicious entries.
    public var maxCompressionRatio: Double?
    /// Output below this many bytes is never judged by ratio. Default 1 MiB.
    public var ratioGraceSize: UInt64
    /// The largest central directory whose entries an opened ``ZipArchive`` holds in memory (about 170
    /// bytes an entry). A larger one is checked whole when the archive is opened, as any other, but only
    /// 16 bytes an entry are kept: ``ZipArchive/entries(from:)`` goes through it as a stream,
    /// ``ZipArchive/entry(named:)`` reads the few records it needs, and the entries are read into memory
    /// only when something asks for all of them (``ZipArchive/entries``, a folder listing). Default 8 MiB,
    /// about 100,000 entries; a million-entry archive then keeps 16 MB instead of about 190.
    public var maxHeldDirectoryBytes: UInt64

    /// Limits with the documented defaults.
    public init(maxEntries: Int = 1_000_000, maxTotalUncompressedSize: UInt64 = 64 << 30,
                maxCompressionRatio: Double? = ZipLimits.deflateMaxRatio, ratioGraceSize: UInt64 = 1 << 20,
                maxHeldDirectoryBytes: UInt64 = 8 << 20) {
        self.maxEntries = maxEntries
        self.maxHeldDirectoryBytes = maxHeldDirectoryBytes
        self.maxTotalUncompressedSize = maxTotalUncompressedSize
        self.maxCompressionRatio = maxCompressionRatio
        self.ratioGraceSize = ratioGraceSize
    }

    /// The most bytes any deflate stream (RFC 1951) can give per compressed byte: 1,032. The longest match
    /// is 258 bytes, and its code cannot take fewer than 2 bits (a 1-bit length code and a 1-bit distance
    /// code, in a block whose code holds nothing else but end-of-block), so 8 bits give at most 4 × 258
    /// bytes; block headers and literals only lower it. Stored data gives 1:1.
    public static let deflateMaxRatio: Double = 1_032

    /// The defaults.
    public static let `default` = ZipLimits()
    /// No limits at all: for archives you made yourself.
    public static let unlimited = ZipLimits(maxEntries: .max, maxTotalUncompressedSize: .max,
                                            maxCompressionRatio: nil, ratioGraceSize: .max,
                                            maxHeldDirectoryBytes: ZipLimits.default.maxHeldDirectoryBytes)
}

extension ZipLimits {
    /// Refuses `output` bytes inflated from `input` compressed bytes when that passes
    /// ``maxCompressionRatio`` (output below ``ratioGraceSize`` is never judged). The readers check it as
    /// they inflate; a caller may check an entry's declared sizes before reading any byte.
    /// - Throws: ``ZipError/Code/limitExceeded`` naming the limit.
    package func checkRatio(output: UInt64, input: UInt64) throws(ZipError) {
        guard let ratio = maxCompressionRatio, output > ratioGraceSize else { return }
        if Double(output) > ratio * Double(max(input, 1)) {
            throw ZipError(.limitExceeded, "compression ratio exceeds the limit of \(Int(ratio)):1")
        }
    }

    /// Refuses `entry` when its *declared* sizes already pass ``maxCompressionRatio``, before a byte of it
    /// is read (``checkRatio(output:input:)`` on the declared sizes; readers check the real output again,
    /// since declared sizes can lie). `verify`, the block-parallel inflater and AssetPack's planning
    /// check it, so an entry that declares a bomb is refused as one whoever meets it first.
    /// - Throws: ``ZipError/Code/limitExceeded`` naming both sizes and the limit (no archive or entry yet).
    package func checkDeclaredRatio(of entry: ZipEntry) throws(ZipError) {
        do throws(ZipError) { try checkRatio(output: entry.uncompressedSize, input: entry.compressedSize) } catch {
            throw ZipError(.limitExceeded, "declares \(entry.uncompressedSize) bytes from \(entry.compressedSize) compressed, "
                           + "past the compression-ratio limit of \(Int(maxCompressionRatio ?? 0)):1 (ZipLimits.maxCompressionRatio)")
        }
    }
}
