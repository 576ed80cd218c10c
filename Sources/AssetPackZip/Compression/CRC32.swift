import CIsal
import CZlib

/// CRC-32 (ISO-HDLC, the zip checksum, APPNOTE 4.4.7): computed by ISA-L's carry-less-multiply folding
/// where ISA-L is loaded (`Inflater.Engine.fastest`), else by zlib's `crc32`.
public struct CRC32: Sendable, Hashable {
    /// The checksum of everything passed to `update(_:)` so far.
    public private(set) var value: UInt32 = 0

    /// A checksum of no bytes (0).
    public init() {}

    /// Adds `bytes` to the checksum.
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard var base = bytes.baseAddress?.assumingMemoryBound(to: Bytef.self) else { return }
        if Self.usesISAL {
            value = assetpack_isal_crc32(value, base, bytes.count)
            return
        }
        var remaining = bytes.count
        var crc = UInt(value)
        while remaining > 0 {
            let chunk = min(remaining, Int(UInt32.max / 2))
            crc = CZlib.crc32(crc, base, uInt(chunk))
            base += chunk
            remaining -= chunk
        }
        value = UInt32(truncatingIfNeeded: crc)
    }

    /// Adds `bytes` to the checksum.
    public mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// True when ISA-L computes the checksums of this process.
    static let usesISAL = Inflater.Engine.fastest == .isal

    /// The CRC-32 of `bytes`.
    public static func checksum(_ bytes: [UInt8]) -> UInt32 {
        var crc = CRC32()
        crc.update(bytes)
        return crc.value
    }

    /// The CRC-32 of the concatenation A+B from the CRC of A, the CRC of B and B's length (zlib's `crc32_combine`).
    package static func combine(_ first: UInt32, _ second: UInt32, secondLength: UInt64) -> UInt32 {
        UInt32(truncatingIfNeeded: crc32_combine(UInt(first), UInt(second), Int(secondLength)))
    }
}
