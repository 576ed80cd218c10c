/// Decides the extra field of a local header before the data is written, so the header never changes
/// size when it is patched: a Zip64 block when the entry may reach 4 GiB, alignment padding for stored
/// entries, and reserved room (as padding) when the size is unknown.
struct LocalHeaderLayout {
    /// The header carries a Zip64 block from the start.
    let zip64: Bool
    /// The header reserved 20 bytes that become a Zip64 block if the entry turns out large.
    let reserved: Bool
    /// Bytes of alignment padding (block header included) after any Zip64 block.
    let paddingLength: Int
    let alignment: Int

    init(sizeHint: UInt64?, method: CompressionMethod, alignment: Int, headerOffset: UInt64, nameLength: Int) {
        zip64 = Self.largestOutput(sizeHint ?? 0, method: method) >= UInt64(FormatLimit.max32)
        reserved = sizeHint == nil
        self.alignment = alignment
        let fixed = FormatLimit.localHeaderSize + nameLength + (zip64 || reserved ? 20 : 0)
        if alignment > 1 {
            // Padding block: 4-byte header + 2-byte alignment value + zeros, as apksigner writes it.
            let unpadded = Int((headerOffset + UInt64(fixed) + 6) % UInt64(alignment))
            paddingLength = 6 + (unpadded == 0 ? 0 : alignment - unpadded)
        } else {
            paddingLength = 0
        }
    }

    /// The most bytes `size` input bytes can become: deflate expands incompressible data by up to about
    /// 0.03 % (zlib's `deflateBound`: 5 bytes per stored block plus a few), stored data not at all.
    static func largestOutput(_ size: UInt64, method: CompressionMethod) -> UInt64 {
        guard method == .deflate else { return size }
        let overhead = (size >> 12) + (size >> 14) + (size >> 25) + 64
        let (total, overflow) = size.addingReportingOverflow(overhead)
        return overflow ? .max : total
    }

    /// Alignments the padding block can express: none (0, 1) or a power of two up to 32,768.
    static func isValidAlignment(_ alignment: Int) -> Bool {
        alignment == 0 || (1...32_768).contains(alignment) && alignment & (alignment - 1) == 0
    }

    /// True when these sizes can be written into this header: a Zip64 block, reserved room for one, or
    /// sizes below 4 GiB.
    func canHold(uncompressed: UInt64, compressed: UInt64) -> Bool {
        zip64 || reserved || max(uncompressed, compressed) < UInt64(FormatLimit.max32)
    }

    /// The extra field written before the data.
    var placeholderExtra: [UInt8] { finalExtra(uncompressed: 0, compressed: 0, placeholder: true) }

    /// The extra field once sizes are known; same length as ``placeholderExtra``.
    func finalExtra(uncompressed: UInt64, compressed: UInt64, placeholder: Bool = false) -> [UInt8] {
        var writer = ByteWriter(capacity: 32 + paddingLength)
        let large = uncompressed >= UInt64(FormatLimit.max32) || compressed >= UInt64(FormatLimit.max32)
        if zip64 || (reserved && large && !placeholder) {
            ExtraField.append(id: ExtraFieldID.zip64,
                              data: Zip64ExtraField(uncompressedSize: uncompressed, compressedSize: compressed).encoded,
                              to: &writer)
        } else if reserved {
            ExtraField.append(id: ExtraFieldID.alignmentPadding, data: [1, 0] + [UInt8](repeating: 0, count: 14), to: &writer)
        }
        if paddingLength > 0 {
            var data = ByteWriter(capacity: paddingLength - 4)
            data.write(UInt16(alignment))
            data.writeZeros(paddingLength - 6)
            ExtraField.append(id: ExtraFieldID.alignmentPadding, data: data.bytes, to: &writer)
        }
        return writer.bytes
    }
}
