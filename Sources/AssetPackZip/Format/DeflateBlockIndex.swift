/// Where the independently decodable blocks of a block-deflated entry start: what ``ParallelDeflater``
/// records and ``BlockParallelInflater`` reads. Not part of the zip format — the entry is one ordinary
/// raw deflate stream that every unzip reads — so it travels beside the archive (in a bundle manifest).
///
/// Block *k* starts at ``blocks``[k] (offsets relative to the entry's data) and ends where block *k*+1
/// starts. An index read from elsewhere is a claim, not a fact: ``spans(uncompressedSize:compressedSize:)``
/// checks it against the entry's sizes before any byte is read with it.
package struct DeflateBlockIndex: Sendable, Hashable {
    /// Where one block starts.
    package struct Block: Sendable, Hashable {
        /// Offset of the block's first byte in the uncompressed data.
        package var uncompressedOffset: UInt64
        /// Offset of the block's first byte in the entry's compressed data.
        package var compressedOffset: UInt64

        /// A block starting at these offsets.
        package init(uncompressedOffset: UInt64, compressedOffset: UInt64) {
            self.uncompressedOffset = uncompressedOffset
            self.compressedOffset = compressedOffset
        }
    }

    /// One checked block: its byte ranges in the compressed and the uncompressed data.
    package struct Span: Sendable, Hashable {
        /// The block's compressed bytes, relative to the entry's data.
        package var compressed: Range<UInt64>
        /// The bytes it inflates to, relative to the start of the file.
        package var uncompressed: Range<UInt64>
        /// True for the block that ends the deflate stream.
        package var isLast: Bool
    }

    /// The blocks in order.
    package var blocks: [Block]

    /// An index of `blocks`.
    package init(_ blocks: [Block]) {
        self.blocks = blocks
    }

    /// An index from `[uncompressed offset, compressed offset]` pairs, the form a bundle manifest stores.
    /// - Throws: ``ZipError/Code/format`` when a pair does not hold exactly two numbers.
    package init(pairs: [[UInt64]]) throws(ZipError) {
        var blocks: [Block] = []
        blocks.reserveCapacity(pairs.count)
        for (number, pair) in pairs.enumerated() {
            guard pair.count == 2 else {
                throw ZipError(.format, "block index entry \(number) holds \(pair.count) numbers instead of 2")
            }
            blocks.append(Block(uncompressedOffset: pair[0], compressedOffset: pair[1]))
        }
        self.blocks = blocks
    }

    /// The index as `[uncompressed offset, compressed offset]` pairs.
    package var pairs: [[UInt64]] { blocks.map { [$0.uncompressedOffset, $0.compressedOffset] } }

    /// Checks the index against an entry of `uncompressedSize` bytes stored in `compressedSize` bytes and
    /// returns each block's ranges. The first block must start at (0, 0); both offsets must grow strictly
    /// from block to block and stay below the sizes; every block but the last must hold at least the 4
    /// bytes of its flush marker.
    /// - Throws: ``ZipError/Code/format`` naming the first offending block.
    /// - Complexity: O(n) in the number of blocks.
    package func spans(uncompressedSize: UInt64, compressedSize: UInt64) throws(ZipError) -> [Span] {
        guard let first = blocks.first, first == Block(uncompressedOffset: 0, compressedOffset: 0) else {
            throw ZipError(.format, "block index does not start with a block at offset 0")
        }
        var spans: [Span] = []
        spans.reserveCapacity(blocks.count)
        for (number, block) in blocks.enumerated() {
            let last = number == blocks.count - 1
            let end = last ? Block(uncompressedOffset: uncompressedSize, compressedOffset: compressedSize) : blocks[number + 1]
            // Compared before subtracting, so hostile offsets near 2^64 cannot overflow.
            let growsU = end.uncompressedOffset > block.uncompressedOffset || (last && number == 0 && uncompressedSize == 0)
            let growsC = end.compressedOffset >= block.compressedOffset
                && end.compressedOffset - block.compressedOffset >= (last ? 1 : 4)
            guard growsU, growsC, end.uncompressedOffset <= uncompressedSize, end.compressedOffset <= compressedSize else {
                throw ZipError(.format, "block index entry \(number) (\(block.uncompressedOffset), \(block.compressedOffset)) "
                               + "does not fit an entry of \(uncompressedSize) bytes in \(compressedSize) compressed")
            }
            spans.append(Span(compressed: block.compressedOffset..<end.compressedOffset,
                              uncompressed: block.uncompressedOffset..<end.uncompressedOffset, isLast: last))
        }
        return spans
    }
}
