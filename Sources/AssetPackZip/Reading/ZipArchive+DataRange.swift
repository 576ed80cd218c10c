extension ZipArchive {
    /// Where `entry`'s (compressed) data lies in ``source``: from the end of its local header (APPNOTE
    /// 4.3.7), `compressedSize` bytes long. The local header is read and checked against the central one
    /// first, as ``open(_:bufferSize:)`` does. For a stored entry this range *is* the file's content, so a
    /// ``SliceSource`` over it gives random access to a file inside the archive (e.g. a stored inner zip).
    ///
    /// The bytes in the range are not verified; read them through ``open(_:bufferSize:)`` to have the
    /// size and CRC-32 checked.
    /// - Throws: ``ZipError`` naming the entry: `.format`, `.headerMismatch`, `.overlap`, `.truncated`.
    public func dataRange(of entry: ZipEntry) throws(ZipError) -> Range<UInt64> {
        let start = try LocalHeaderCheck.dataOffset(of: entry, in: source)
        return start..<(start + entry.compressedSize)
    }

    /// Reads `entry`'s local header (one small read) and checks it against the central one, as
    /// ``open(_:bufferSize:)`` does: signature, name, method and — without a data descriptor — CRC-32 and
    /// sizes. For an entry that is never opened, a directory above all: `unzip -t` refuses a directory entry
    /// whose local header is broken, and so must a reader that trusts the central directory's name for it.
    /// - Throws: ``ZipError`` naming the entry: `.format`, `.headerMismatch`, `.overlap`, `.truncated`.
    package func checkLocalHeader(of entry: ZipEntry) throws(ZipError) {
        _ = try dataRange(of: entry)
    }
}
