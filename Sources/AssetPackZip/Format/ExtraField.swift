/// Walks and builds extra fields (APPNOTE 4.5): a sequence of (id: UInt16, size: UInt16, data) blocks.
enum ExtraField {
    /// Splits an extra field into its blocks. A trailing fragment shorter than a block header is ignored
    /// (zipalign pads with zeros); a block whose size runs past the end is an error (nil).
    static func blocks(_ extra: [UInt8]) -> [(id: UInt16, data: [UInt8])]? {
        var cursor = ByteCursor(extra)
        var result: [(id: UInt16, data: [UInt8])] = []
        while cursor.remaining >= 4 {
            guard let id = cursor.read(UInt16.self), let size = cursor.read(UInt16.self) else { return nil }
            guard let data = cursor.readBytes(Int(size)) else {
                // Zero padding that happens to look like a header (id 0, size 0) never gets here; a real
                // overrun does. Tolerate all-zero tails written by alignment tools.
                return extra[(cursor.position - 4)...].allSatisfy { $0 == 0 } ? result : nil
            }
            result.append((id, data))
        }
        return result
    }

    /// Walks the blocks of the extra field at `range` of `bytes` as ``blocks(_:)`` does, without copying
    /// any: `visit` gets each block's id and the range of its data in `bytes`. False when a block runs
    /// past the end (an all-zero tail is tolerated, as in ``blocks(_:)``).
    static func walk(_ bytes: [UInt8], _ range: Range<Int>, _ visit: (UInt16, Range<Int>) -> Void) -> Bool {
        var cursor = ByteCursor(bytes, position: range.lowerBound, end: range.upperBound)
        while cursor.remaining >= 4 {
            guard let id = cursor.read(UInt16.self), let size = cursor.read(UInt16.self) else { return false }
            let start = cursor.position
            guard cursor.skip(Int(size)) else {
                return bytes[(start - 4)..<range.upperBound].allSatisfy { $0 == 0 }
            }
            visit(id, start..<cursor.position)
        }
        return true
    }

    /// The data of the first block with `id`, if any.
    static func find(_ id: UInt16, in extra: [UInt8]) -> [UInt8]? {
        blocks(extra)?.first { $0.id == id }?.data
    }

    /// Appends one block.
    static func append(id: UInt16, data: [UInt8], to writer: inout ByteWriter) {
        writer.write(id)
        writer.write(UInt16(data.count))
        writer.write(data)
    }
}

/// The Zip64 extended information extra field (APPNOTE 4.5.3): the 64-bit values of the header fields
/// that hold 0xFFFFFFFF, in a fixed order, present only for those fields.
struct Zip64ExtraField: Equatable {
    var uncompressedSize: UInt64?
    var compressedSize: UInt64?
    var localHeaderOffset: UInt64?
    var diskNumberStart: UInt32?

    /// Reads the values the header marked as "in the Zip64 field". Nil when the block is too short.
    static func parse(_ data: [UInt8], needUncompressed: Bool, needCompressed: Bool, needOffset: Bool,
                      needDisk: Bool) -> Zip64ExtraField? {
        var cursor = ByteCursor(data)
        var field = Zip64ExtraField()
        if needUncompressed { guard let value = cursor.read(UInt64.self) else { return nil }; field.uncompressedSize = value }
        if needCompressed { guard let value = cursor.read(UInt64.self) else { return nil }; field.compressedSize = value }
        if needOffset { guard let value = cursor.read(UInt64.self) else { return nil }; field.localHeaderOffset = value }
        if needDisk { guard let value = cursor.read(UInt32.self) else { return nil }; field.diskNumberStart = value }
        return field
    }

    /// The block's data, fields in spec order.
    var encoded: [UInt8] {
        var writer = ByteWriter(capacity: 28)
        if let uncompressedSize { writer.write(uncompressedSize) }
        if let compressedSize { writer.write(compressedSize) }
        if let localHeaderOffset { writer.write(localHeaderOffset) }
        if let diskNumberStart { writer.write(diskNumberStart) }
        return writer.bytes
    }
}
