/// Finds the ends of content-defined chunks (``ContentChunking``) in bytes handed to it in pieces of any size:
/// the same boundaries whatever the pieces.
struct ChunkScanner {
    let chunking: ContentChunking
    /// Bytes of the current chunk seen so far.
    private(set) var length = 0
    private var hash: UInt64 = 0

    init(_ chunking: ContentChunking) { self.chunking = chunking }

    /// How many bytes of `bytes` (the next ones of the data) belong to the current chunk, when it ends inside
    /// them; nil when it goes on past them. After a boundary, the next call starts the next chunk.
    mutating func boundary(in bytes: UnsafeRawBufferPointer) -> Int? {
        var index = 0
        // The first ``ContentChunking/minimum`` bytes of a chunk cannot end it: skipped, not hashed.
        if length < chunking.minimum {
            let skipped = min(chunking.minimum - length, bytes.count)
            index = skipped
            length += skipped
            if length < chunking.minimum { return nil }
        }
        let (strict, loose, average, maximum) = (chunking.strictMask, chunking.looseMask, chunking.average, chunking.maximum)
        var (hash, length) = (self.hash, self.length)
        let found: Int? = ContentChunking.gear.withUnsafeBufferPointer { gear in
            while index < bytes.count {
                hash = (hash &<< 1) &+ gear[Int(bytes[index])]
                index += 1
                length += 1
                if hash & (length <= average ? strict : loose) == 0 || length >= maximum { return index }
            }
            return nil
        }
        if found != nil { (self.hash, self.length) = (0, 0) } else { (self.hash, self.length) = (hash, length) }
        return found
    }
}
