import AssetPack

/// Finds the bytes of a run of new chunks in a window of the file's previous version, for a chunk patch
/// (`ChunkPatch`): at each offset the new bytes are first compared with the old ones on the current diagonal (where the
/// last copy left off, at first where the run's bytes were), else looked up in an index of the window by the hash of a
/// 32-byte stretch every 16 bytes; each stretch found is grown both ways as far as the bytes agree. Every stretch of
/// 47 bytes or more that the window holds is found, and bytes that did not move are copied from where they were (a
/// repeated phrase elsewhere does not lure them away: an installer whose file started as a clone of the previous
/// version leaves such copies unwritten); what is not found is written as it is.
enum PatchDiff {
    /// Bytes hashed at once.
    static let stretch = 32
    /// Bytes between two stretches of the window that are indexed.
    static let step = 16

    /// The instructions that make `new` from `old`, which is the previous version's bytes from `oldOffset` on;
    /// `aligned`: where in `old` the first byte of `new` most likely was.
    static func instructions(new: UnsafeRawBufferPointer, old: UnsafeRawBufferPointer, oldOffset: UInt64,
                             aligned: Int = 0) -> ChunkPatch.Writer {
        var writer = ChunkPatch.Writer()
        var table: [UInt64: Int32] = [:]
        if old.count >= stretch {
            table.reserveCapacity(old.count / step + 1)
            for start in Swift.stride(from: 0, through: old.count - stretch, by: step) {
                table[hash(old, at: start)] = Int32(start)
            }
        }
        var at = 0, literalStart = 0, diagonal = aligned
        while at + stretch <= new.count {
            let found: Int
            if at + diagonal >= 0, same(new, at, old, at + diagonal, count: stretch) {
                found = at + diagonal
            } else if let indexed = table[hash(new, at: at)].map(Int.init), same(new, at, old, indexed, count: stretch) {
                found = indexed
            } else {
                at += 1
                continue
            }
            var (start, from) = (at, found)
            while start > literalStart && from > 0 && new[start - 1] == old[from - 1] {
                start -= 1
                from -= 1
            }
            var end = at + stretch, oldEnd = found + stretch
            while end < new.count && oldEnd < old.count && new[end] == old[oldEnd] {
                end += 1
                oldEnd += 1
            }
            writer.append(literal: UnsafeRawBufferPointer(rebasing: new[literalStart..<start]), copyFrom: oldOffset + UInt64(from),
                          copyLength: UInt64(end - start))
            (at, literalStart, diagonal) = (end, end, found - at)
        }
        if literalStart < new.count {
            writer.append(literal: UnsafeRawBufferPointer(rebasing: new[literalStart...]), copyFrom: 0, copyLength: 0)
        }
        return writer
    }

    /// A hash of the 32 bytes of `bytes` from `at` on.
    private static func hash(_ bytes: UnsafeRawBufferPointer, at: Int) -> UInt64 {
        func word(_ index: Int) -> UInt64 { bytes.loadUnaligned(fromByteOffset: at + 8 * index, as: UInt64.self) }
        let mixed = (word(0) &* 0x9E37_79B9_7F4A_7C15) ^ (word(1) &* 0xC2B2_AE3D_27D4_EB4F)
        return mixed ^ ((word(2) &* 0x1656_67B1_9E37_79F9) << 1) ^ ((word(3) &* 0x27D4_EB2F_1656_67C5) >> 1)
    }

    /// Whether `count` bytes of `a` from `i` on equal those of `b` from `j` on.
    private static func same(_ a: UnsafeRawBufferPointer, _ i: Int, _ b: UnsafeRawBufferPointer, _ j: Int, count: Int) -> Bool {
        guard j >= 0, j + count <= b.count else { return false }
        return (0..<count / 8).allSatisfy {
            a.loadUnaligned(fromByteOffset: i + 8 * $0, as: UInt64.self) == b.loadUnaligned(fromByteOffset: j + 8 * $0, as: UInt64.self)
        }
    }
}
