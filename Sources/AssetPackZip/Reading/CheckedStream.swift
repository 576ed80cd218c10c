/// The check that ends every stream of data in the package, written once (Go's `checksumReader`): never
/// more bytes than expected (the bomb limit: the declared size, not what the data says), the exact size
/// and the CRC-32 confirmed *before* the last bytes are handed out, so damaged data throws instead of
/// ending; after a failure every call throws the same error, so a damaged stream never looks like a clean end.
///
/// Bytes come in pulled from a ``CheckedSource`` (``read(into:from:)``), handed in (``take(_:)``), or as parts
/// checked on other threads (``take(crc32:length:)``); every mismatch is worded by
/// ``mismatch(_:expected:found:code:)``. A plain value kept inside its reader (no allocation per entry).
package struct CheckedStream {
    /// What the data must turn out to be, and who says so.
    package struct Expectation: Sendable {
        /// The bytes the data must have.
        package var size: UInt64
        /// The CRC-32 the data must have; nil when nobody knows it (it is still computed).
        package var crc32: UInt32?
        /// The compressed bytes the data must take, when that is checked too.
        package var compressedSize: UInt64?
        /// Who says so, for messages: "declared in the central directory", "recorded in the manifest".
        package var claim: String

        package init(size: UInt64, crc32: UInt32?, compressedSize: UInt64? = nil, claim: String) {
            self.size = size
            self.crc32 = crc32
            self.compressedSize = compressedSize
            self.claim = claim
        }
    }

    /// The values given at the start; nil when the source tells them at the end (a data descriptor).
    private let expected: Expectation?
    /// The code of every mismatch: nil for `.sizeMismatch` and `.checksum`.
    private let mismatchCode: ZipError.Code?
    /// Bytes handed out so far.
    package private(set) var produced: UInt64 = 0
    private var crc = CRC32()
    /// The CRC-32 of the parts taken by ``take(crc32:length:)`` (never mixed with bytes).
    private var combined: UInt32?
    /// True once the end was reached and every check passed.
    package private(set) var isVerified = false
    /// The error that ended the stream; every later read throws it again.
    private var failure: ZipError?

    /// A check of data that must match `expected` (nil: learned from the source at the end).
    /// - Parameter mismatchCode: the code of every size or CRC-32 mismatch, instead of `.sizeMismatch` and
    ///   `.checksum` (the runtime uses ``ZipError/Code/verification`` for data checked against a manifest).
    package init(expecting expected: Expectation?, mismatchCode: ZipError.Code? = nil) {
        self.expected = expected
        self.mismatchCode = mismatchCode
    }

    /// The CRC-32 of the bytes handed out so far.
    package var crc32: UInt32 { combined ?? crc.value }

    /// Fills `buffer` with the next bytes of `source`; returns 0 at the end, which is reached only after
    /// size and CRC-32 checked out. Errors pass through `source.locate(_:)` once and are kept.
    package mutating func read(into buffer: UnsafeMutableRawBufferPointer, from source: some CheckedSource) throws(ZipError) -> Int {
        if let failure { throw failure }
        do {
            if isVerified || buffer.count == 0 { return 0 }
            let room = expected.map { Int(min(UInt64(buffer.count), $0.size - produced)) } ?? buffer.count
            let count = room == 0 ? 0 : try source.decode(into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<room]),
                                                          produced: produced)
            crc.update(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            produced += UInt64(count)
            let ended = room > 0 && count == 0
            if ended || produced == expected?.size || source.hasEnded { try finish(source, ended: ended) }
            return count
        } catch {
            let located = source.locate(error)
            failure = located
            throw located
        }
    }

    /// Counts `bytes` and adds them to the CRC-32; throws, before taking any, when they would pass the
    /// expected size (they are then not to be written).
    package mutating func take(_ bytes: UnsafeRawBufferPointer) throws(ZipError) {
        try take(count: UInt64(bytes.count))
        crc.update(bytes)
    }

    /// Counts `length` bytes whose CRC-32 is `crc32` (a part checked on another thread), combining it into
    /// the CRC-32 of everything taken (a check takes either parts or bytes).
    package mutating func take(crc32 part: UInt32, length: UInt64) throws(ZipError) {
        try take(count: length)
        combined = CRC32.combine(crc32, part, secondLength: length)
    }

    /// Every byte was taken: throws unless they are exactly the expected ones; returns their CRC-32.
    @discardableResult
    package mutating func finish() throws(ZipError) -> UInt32 {
        if let failure { throw failure }
        if let expected {
            do { try check(against: expected, consumed: nil) } catch {
                failure = error
                throw error
            }
        }
        isVerified = true
        return crc32
    }

    private mutating func take(count: UInt64) throws(ZipError) {
        if let failure { throw failure }
        if let expected, count > expected.size - produced {
            failure = mismatch("size", expected: "\(expected.size) bytes (\(expected.claim))", found: "more")
            throw failure!
        }
        produced += count
    }

    /// The data is all out: it must end here, and match what was expected.
    /// `ended`: the source has just said its data ended.
    private mutating func finish(_ source: some CheckedSource, ended: Bool) throws(ZipError) {
        if !ended && !source.hasEnded {
            var extra: UInt8 = 0
            let more = try withUnsafeMutableBytes(of: &extra) { (byte) throws(ZipError) -> Int in
                try source.decode(into: byte, produced: produced)
            }
            if more > 0, let expected {
                throw mismatch("size", expected: "\(expected.size) bytes (\(expected.claim))", found: "more")
            }
        }
        let wanted = if let expected { expected } else { try source.expectationAtEnd(size: produced, crc32: crc.value) }
        try check(against: wanted, consumed: source.consumed)
        isVerified = true
    }

    /// `consumed`: the compressed bytes the source took (nil when bytes were handed in: nothing to compare).
    private func check(against expected: Expectation, consumed: UInt64?) throws(ZipError) {
        guard produced == expected.size else {
            throw mismatch("size", expected: "\(expected.size) bytes (\(expected.claim))", found: "\(produced)")
        }
        if let compressed = expected.compressedSize, let consumed, compressed != consumed {
            throw mismatch("compressed size", expected: "\(compressed) bytes (\(expected.claim))", found: "\(consumed)")
        }
        if let wanted = expected.crc32, crc32 != wanted {
            throw mismatch("CRC-32", expected: "\(hex(wanted)) (\(expected.claim))", found: hex(crc32))
        }
    }

    /// A mismatch of this check: code `mismatchCode` when one was given.
    private func mismatch(_ what: String, expected: String, found: String) -> ZipError {
        Self.mismatch(what, expected: expected, found: found, code: mismatchCode)
    }

    /// The one wording of every mismatch: `WHAT mismatch: expected E, data has A`, with code `code`, else
    /// `.checksum` for a CRC-32 and `.sizeMismatch` for a size.
    package static func mismatch(_ what: String, expected: String, found: String, code: ZipError.Code? = nil) -> ZipError {
        ZipError(code ?? (what == "CRC-32" ? .checksum : .sizeMismatch), "\(what) mismatch: expected \(expected), data has \(found)")
    }
}

/// The decoder behind a ``CheckedStream``: data decoded but not checked yet (an entry's stored or inflated
/// bytes, another stream).
package protocol CheckedSource: AnyObject {
    /// Fills `buffer` (already cut to the bytes still expected) with the next bytes; 0 when the data has
    /// ended. `produced`: the bytes handed out before, for messages and ratio checks.
    func decode(into buffer: UnsafeMutableRawBufferPointer, produced: UInt64) throws(ZipError) -> Int
    /// True once the source knows its data has ended (a deflate stream's last block was read), so the
    /// last bytes are checked before they are handed out.
    var hasEnded: Bool { get }
    /// Compressed bytes taken so far (checked when the expectation has a compressed size).
    var consumed: UInt64 { get }
    /// What the data must be, once it has ended: only asked when the stream was made without expectation.
    func expectationAtEnd(size: UInt64, crc32: UInt32) throws(ZipError) -> CheckedStream.Expectation
    /// `error` with this source's context (archive, entry, offset) filled in.
    func locate(_ error: ZipError) -> ZipError
}

extension CheckedSource {
    package var consumed: UInt64 { 0 }

    package func expectationAtEnd(size: UInt64, crc32: UInt32) throws(ZipError) -> CheckedStream.Expectation {
        throw ZipError(.invalidArgument, "the data's size and CRC-32 are not known")
    }

    package func locate(_ error: ZipError) -> ZipError { error }
}
