/// The checks that end every stream of data in the package, written once (Go's `checksumReader`): the
/// stream never hands out more bytes than expected; it confirms the exact size and the CRC-32 *before* it
/// hands out the last bytes, so damaged data throws instead of ending; and after a failure every call
/// throws the same error, so a damaged stream never looks like a clean end.
///
/// A plain value kept inside its reader (no allocation per entry): ``ZipEntryReader`` (an entry against its
/// central header), ``ZipStreamReader`` (an entry against its local header or data descriptor) and the
/// runtime's `VerifyingStream` (data against a bundle manifest) each hold one, and give it their decoder as
/// a ``CheckedSource``.
package struct CheckedStream {
    /// What the data must turn out to be, and who says so.
    package struct Expectation: Sendable {
        /// The bytes the data must have.
        package var size: UInt64
        /// The CRC-32 the data must have.
        package var crc32: UInt32
        /// The compressed bytes the data must take, when that is checked too.
        package var compressedSize: UInt64?
        /// Who says so, for messages: "declared in the central directory", "recorded in the manifest".
        package var claim: String

        package init(size: UInt64, crc32: UInt32, compressedSize: UInt64? = nil, claim: String) {
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
    package var crc32: UInt32 { crc.value }

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

    /// The data is all out: it must end here, and match what was expected.
    /// `ended`: the source has just said its data ended.
    private mutating func finish(_ source: some CheckedSource, ended: Bool) throws(ZipError) {
        if let expected, produced < expected.size {
            throw mismatch(.sizeMismatch, "data ends after \(produced) bytes, but \(expected.size) are \(expected.claim)")
        }
        if !ended && !source.hasEnded {
            var extra: UInt8 = 0
            let more = try withUnsafeMutableBytes(of: &extra) { (byte) throws(ZipError) -> Int in
                try source.decode(into: byte, produced: produced)
            }
            if more > 0, let expected {
                throw mismatch(.sizeMismatch, "data is longer than expected: more than the \(expected.size) bytes \(expected.claim)")
            }
        }
        if let expected {
            try check(against: expected, consumed: source.consumed)
        } else {
            try check(against: source.expectationAtEnd(size: produced, crc32: crc.value), consumed: source.consumed)
        }
        isVerified = true
    }

    private func check(against expected: Expectation, consumed: UInt64) throws(ZipError) {
        guard produced == expected.size else {
            throw mismatch(.sizeMismatch, "data is \(produced) bytes, \(expected.size) \(expected.claim)")
        }
        if let compressed = expected.compressedSize, compressed != consumed {
            throw mismatch(.sizeMismatch, "compressed data is \(consumed) bytes, \(compressed) \(expected.claim)")
        }
        guard crc.value == expected.crc32 else {
            throw mismatch(.checksum, "CRC-32 mismatch: expected \(hex(expected.crc32)) (\(expected.claim)), data has \(hex(crc.value))")
        }
    }

    private func mismatch(_ code: ZipError.Code, _ message: String) -> ZipError {
        ZipError(mismatchCode ?? code, message)
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
