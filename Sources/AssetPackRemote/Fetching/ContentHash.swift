import AssetPack
import AssetPackSystem
import Crypto

/// A SHA-256 digest: what a fetched file or block must hash to before its bytes count.
public struct ContentHash: Hashable, Sendable, CustomStringConvertible {
    /// The 32 bytes.
    public let bytes: [UInt8]

    /// A digest from its 32 bytes; nil for any other count.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 32 else { return nil }
        self.bytes = bytes
    }

    /// A digest from 64 hex digits (either case), as manifests and signature files write it; nil otherwise.
    public init?(hex: String) {
        let digits = Array(hex.utf8)
        guard digits.count == 64 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        for index in stride(from: 0, to: 64, by: 2) {
            guard let high = Self.nibble(digits[index]), let low = Self.nibble(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        self.bytes = bytes
    }

    /// The SHA-256 of `data`.
    public static func of<Bytes: Sequence>(_ data: Bytes) -> ContentHash where Bytes.Element == UInt8 {
        var hasher = Crypto.SHA256()
        hasher.update(data: Array(data))
        return ContentHash(hasher.finalize())
    }

    init(_ digest: Crypto.SHA256Digest) {
        bytes = Array(digest)
    }

    /// 64 lowercase hex digits.
    public var hex: String { bytes.withUnsafeBytes { lowercaseHex($0) } }

    public var description: String { hex }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case 0x30...0x39: digit - 0x30
        case 0x61...0x66: digit - 0x61 + 10
        case 0x41...0x46: digit - 0x41 + 10
        default: nil
        }
    }
}
