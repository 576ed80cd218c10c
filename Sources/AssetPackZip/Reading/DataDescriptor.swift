/// A data descriptor (APPNOTE 4.3.9): the CRC-32 and sizes written after an entry's data when the local
/// header could not hold them (bit 3). It comes in four layouts: with or without the optional signature
/// 0x08074b50, with 32-bit sizes or, for Zip64 entries, 64-bit sizes.
struct DataDescriptor: Equatable {
    var crc32: UInt32
    var compressedSize: UInt64
    var uncompressedSize: UInt64

    /// One of the four ways a descriptor can be laid out.
    struct Layout: Equatable {
        /// The record starts with the optional signature.
        var signed: Bool
        /// The sizes are 8 bytes each (Zip64) rather than 4.
        var wide: Bool

        /// Bytes the record occupies.
        var length: Int { (signed ? 4 : 0) + 4 + (wide ? 16 : 8) }
    }

    /// The longest layout plus the four bytes of the record after it: what ``find(in:zip64:expecting:)``
    /// wants to see.
    static let lookahead = 24 + 4

    /// Reads the record in `layout` from the start of `bytes`; nil when too short or the signature is missing.
    static func parse(_ bytes: [UInt8], layout: Layout) -> DataDescriptor? {
        var cursor = ByteCursor(bytes)
        if layout.signed, cursor.read(UInt32.self) != Signature.dataDescriptor { return nil }
        guard let crc = cursor.read(UInt32.self) else { return nil }
        if layout.wide {
            guard let compressed = cursor.read(UInt64.self), let uncompressed = cursor.read(UInt64.self) else { return nil }
            return DataDescriptor(crc32: crc, compressedSize: compressed, uncompressedSize: uncompressed)
        }
        guard let compressed = cursor.read(UInt32.self), let uncompressed = cursor.read(UInt32.self) else { return nil }
        return DataDescriptor(crc32: crc, compressedSize: UInt64(compressed), uncompressedSize: UInt64(uncompressed))
    }

    /// Picks the layout of the descriptor at the start of `bytes` (up to ``lookahead`` bytes; fewer only when
    /// the stream ends there). Layouts are tried in order of likelihood — signed first when the signature is
    /// there, 64-bit first when the local header had a Zip64 field — and, as Info-ZIP does, a layout counts
    /// only when the four bytes after it start a record. Among those, one whose values match `expected`
    /// wins; otherwise the first one, so the caller can report the mismatch. When no layout is followed by
    /// a record, the most likely one that fits is taken — unless the stream ended inside the lookahead: then
    /// the descriptor or the record after it is cut short (a record must follow; the central directory at least).
    /// - Returns: the descriptor and the layout it was read with; nil when none fits (the archive is truncated).
    static func find(in bytes: [UInt8], zip64: Bool,
                     expecting expected: DataDescriptor) -> (descriptor: DataDescriptor, layout: Layout)? {
        let readable = candidates(zip64: zip64).compactMap { layout in
            parse(bytes, layout: layout).map { (descriptor: $0, layout: layout) }
        }
        let followed = readable.filter { recordFollows(bytes, at: $0.layout.length) }
        let fallback = bytes.count >= lookahead ? readable.first : nil
        return followed.first { $0.descriptor == expected } ?? followed.first ?? fallback
    }

    /// The four layouts, most likely first.
    private static func candidates(zip64: Bool) -> [Layout] {
        let widths = zip64 ? [true, false] : [false, true]
        return [true, false].flatMap { signed in widths.map { Layout(signed: signed, wide: $0) } }
    }

    /// True when `bytes` has a record signature at `offset`.
    static func recordFollows(_ bytes: [UInt8], at offset: Int) -> Bool {
        var cursor = ByteCursor(bytes, position: offset)
        guard let signature = cursor.read(UInt32.self) else { return false }
        return followers.contains(signature)
    }

    /// Records that may come right after a data descriptor.
    private static let followers: Set<UInt32> = [
        Signature.localFileHeader, Signature.centralDirectoryHeader, Signature.dataDescriptor,
        Signature.endOfCentralDirectory, Signature.zip64EndOfCentralDirectory,
    ]
}
