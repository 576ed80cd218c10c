/// A zip compression method (APPNOTE 4.4.5). Only ``stored`` and ``deflate`` can be read or written;
/// the others are named so errors can say what an archive used.
public struct CompressionMethod: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The method's number in the headers.
    public let rawValue: UInt16
    /// Wraps a method number.
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// 0: the data is stored as is.
    public static let stored = CompressionMethod(rawValue: 0)
    /// 8: raw deflate (RFC 1951).
    public static let deflate = CompressionMethod(rawValue: 8)
    /// 9: Deflate64, not supported.
    public static let deflate64 = CompressionMethod(rawValue: 9)
    /// 12: bzip2, not supported.
    public static let bzip2 = CompressionMethod(rawValue: 12)
    /// 14: LZMA, not supported.
    public static let lzma = CompressionMethod(rawValue: 14)
    /// 93: Zstandard, not supported.
    public static let zstd = CompressionMethod(rawValue: 93)
    /// 95: XZ, not supported.
    public static let xz = CompressionMethod(rawValue: 95)
    /// 98: PPMd, not supported.
    public static let ppmd = CompressionMethod(rawValue: 98)
    /// 99: WinZip AES encryption marker, not supported.
    public static let aes = CompressionMethod(rawValue: 99)

    /// True for the methods this library can read and write.
    public var isSupported: Bool { self == .stored || self == .deflate }

    /// A human name, e.g. `deflate (8)`; `unknown (N)` for a number the APPNOTE gives no method.
    public var description: String {
        let names: [UInt16: String] = [
            0: "stored", 1: "shrunk", 6: "imploded", 8: "deflate", 9: "deflate64", 12: "bzip2", 14: "lzma",
            18: "ibm-terse", 19: "lz77", 93: "zstd", 95: "xz", 96: "jpeg", 97: "wavpack", 98: "ppmd", 99: "aes",
        ]
        return "\(names[rawValue] ?? "unknown") (\(rawValue))"
    }
}
