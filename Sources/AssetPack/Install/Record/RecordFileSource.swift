import AssetPackSystem
import AssetPackZip

/// The text of an install record's file, for ``JSONPullParser``, a chunk at a time: inflated when the file
/// starts with gzip's magic bytes (`1f 8b`), read as it is when it does not (the plain `installed.json` of older
/// installs). The gzip member (RFC 1952) is read here — its header, then its deflate data by the fastest inflater
/// (``Inflater/Engine/fastest``: ISA-L where installed, about twice zlib's speed; an upgrade reads the record
/// several times), then its trailer, against the CRC-32 and length of the text. Data that is damaged, cut short,
/// followed by other bytes or at odds with its trailer is an error: the record is then unreadable, as a broken
/// text is.
final class RecordFileSource {
    private let file: Descriptor
    private let input = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 16)
    /// The unread bytes of ``input``.
    private var start = 0, end = 0
    /// Nil until the first bytes decided; then the inflater of the gzip member's deflate data, or nil for plain text.
    private var inflater: Inflater?
    private var decided = false, ended = false
    /// The CRC-32 of the text inflated so far.
    private var crc = CRC32()
    /// The most bytes of text the record may inflate to (``InstallRecord/maxRecordSize``), and how many it did.
    private let limit: Int
    private var inflated = 0

    /// The source of the record in `file`, read from where the file is, at most `limit` bytes of text.
    init(_ file: Descriptor, limit: Int) {
        self.file = file
        self.limit = limit
    }

    deinit { input.deallocate() }

    /// Fills `buffer` with the record's next text; 0 at its end.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(AssetPackError) -> Int {
        if !decided { try decide() }
        guard let inflater else {
            guard start == end else { return take(into: buffer) }
            return try io(file.fd.read(into: buffer, path: file.path))
        }
        while !ended {
            if start == end, try refill() == 0 { throw damaged("its gzip data is cut short") }
            let step: Inflater.Step
            do {
                step = try inflater.inflate(UnsafeRawBufferPointer(rebasing: input[start..<end]), into: buffer)
            } catch {
                throw damaged(error.message)
            }
            start += step.consumed
            inflated += step.produced
            if inflated > limit { throw damaged("it inflates to more than \(limit) bytes") }
            crc.update(UnsafeRawBufferPointer(rebasing: buffer[0..<step.produced]))
            if step.finished {
                try checkTrailer()
                ended = true
            }
            if step.produced > 0 { return step.produced }
        }
        return 0
    }

    /// Reads the rest of a compressed record, only to check it (a reader of one list stops where its list ends):
    /// throws when its data is damaged, cut short or followed by other bytes, or its length or CRC-32 differs
    /// from its trailer's. Does nothing for plain text.
    func checkRest() throws(AssetPackError) {
        guard inflater != nil else { return }
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 16)
        defer { scratch.deallocate() }
        while try read(into: scratch) > 0 {}
    }

    /// Reads the first bytes and decides by them whether the file is gzip data; if so, reads its header.
    private func decide() throws(AssetPackError) {
        decided = true
        while end < input.count, try refill(keeping: true) > 0 {}
        guard end >= 2, input[0] == 0x1F, input[1] == 0x8B else { return }
        try skipHeader()
        do { inflater = try Inflater() } catch { throw AssetPackError(error, path: file.path) }
    }

    /// Steps over the gzip header at the start of ``input``: 10 bytes, then the optional extra field, name,
    /// comment and header CRC its flags announce.
    private func skipHeader() throws(AssetPackError) {
        guard end >= 10 else { throw damaged("its gzip header is cut short") }
        guard input[2] == 8 else { throw damaged("its gzip data is not deflate's (method \(input[2]))") }
        let flags = input[3]
        guard flags & 0xE0 == 0 else { throw damaged("its gzip header has reserved flags set") }
        var position = 10
        if flags & 0x04 != 0, position + 2 <= end {
            position += 2 + (Int(input[position]) | Int(input[position + 1]) << 8)
        }
        for flag in [UInt8(0x08), 0x10] where flags & flag != 0 {
            guard position < end, let zero = (position..<end).first(where: { input[$0] == 0 }) else {
                throw damaged("its gzip header is cut short")
            }
            position = zero + 1
        }
        if flags & 0x02 != 0 { position += 2 }
        guard position <= end else { throw damaged("its gzip header is cut short") }
        start = position
    }

    /// Reads the member's trailer — the text's CRC-32 and length (modulo 2^32), little-endian — and checks both,
    /// and that nothing follows it.
    private func checkTrailer() throws(AssetPackError) {
        while end - start < 8 {
            let unread = end - start
            input.copyMemory(from: UnsafeRawBufferPointer(rebasing: input[start..<end]))
            (start, end) = (0, unread)
            guard try refill(keeping: true) > 0 else { throw damaged("its gzip trailer is cut short") }
        }
        func word(_ at: Int) -> UInt32 { (0..<4).reduce(0) { $0 | UInt32(input[at + $1]) << (8 * $1) } }
        let (storedCRC, storedLength) = (word(start), word(start + 4))
        start += 8
        guard storedCRC == crc.value, storedLength == UInt32(truncatingIfNeeded: inflated) else {
            throw damaged("its text differs from the CRC-32 or length its gzip trailer records")
        }
        let trailing = try start < end ? end - start : refill()
        if trailing > 0 { throw damaged("bytes follow its gzip data") }
    }

    /// Reads more of the file into ``input``, after the bytes kept there when `keeping`, else in place of them.
    private func refill(keeping: Bool = false) throws(AssetPackError) -> Int {
        if !keeping { (start, end) = (0, 0) }
        let count = try io(file.fd.read(into: UnsafeMutableRawBufferPointer(rebasing: input[end...]), path: file.path))
        end += count
        return count
    }

    /// Copies unread bytes of ``input`` into `buffer`.
    private func take(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let count = min(buffer.count, end - start)
        buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: input[start..<(start + count)]))
        start += count
        return count
    }

    private func damaged(_ reason: String) -> AssetPackError {
        AssetPackError(.io, "the install record is damaged: \(reason)", path: file.path)
    }
}
