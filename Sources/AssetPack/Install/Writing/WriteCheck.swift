import AssetPackZip

/// The one check of every byte the installer writes (a block-parallel inflate's blocks pass the same
/// ``CheckedStream``s, and their mismatch is this one's), in the same pass as the write: the zip layer's
/// ``CheckedStream`` counts the bytes (never more than expected: the bomb limit is the declared size, not
/// what the data says) and computes their CRC-32, the SHA-256 is computed beside it when one is expected,
/// and the last ``read(into:from:)`` or ``finish()`` compares them with what was expected.
///
/// A mismatch is one error (``mismatch(_:path:origin:entry:)``): code ``AssetPackError/Code/verification``,
/// naming where the bytes come from, the file's path in the tree and the entry, and what differed —
/// `SOURCE: "PATH" from entry "NAME": CRC-32 mismatch: expected 1a2b3c4d (CLAIM), data has 5e6f7a8b`.
struct WriteCheck {
    /// The file's path in the tree being installed.
    let path: AssetPath
    /// Where its bytes come from (an archive, a folder's file, a delivered bundle's file).
    let origin: ErrorLocation
    /// The zip entry they come from, when they do.
    let entry: String?
    /// What the bytes must be.
    private let expectation: CheckedStream.Expectation
    private var bytes: CheckedStream
    /// The SHA-256 (hex) the bytes must have and the hasher computing theirs, when one is expected.
    private let sha256: (expected: String, hasher: any ContentHasher)?
    /// True once the SHA-256 was compared (it is computed once).
    private var hashChecked = false

    /// A check of `size` bytes with CRC-32 `crc32` (nil: computed, not compared) and SHA-256 `sha256` (computed
    /// with `hasher` when both are given), as `claim` states ("recorded in the manifest").
    init(path: AssetPath, size: UInt64, crc32: UInt32?, sha256: String? = nil, hasher: (any ContentHasher)? = nil,
         claim: String, origin: ErrorLocation, entry: String? = nil) {
        self.path = path
        self.origin = origin
        self.entry = entry
        expectation = .init(size: size, crc32: crc32, claim: claim)
        bytes = CheckedStream(expecting: expectation)
        self.sha256 = if let sha256, let hasher { (sha256, hasher) } else { nil }
    }

    /// The CRC-32 of the bytes so far.
    var crc32: UInt32 { bytes.crc32 }
    /// The bytes so far.
    var written: UInt64 { bytes.produced }

    /// Forgets every byte taken: the next is the first again.
    mutating func restart() {
        bytes = CheckedStream(expecting: expectation)
        _ = sha256?.hasher.finalizeHex()  // starts over
        hashChecked = false
    }

    /// Fills `buffer` with the next bytes of `source` (a zip entry's decoder); returns 0 at the end, which
    /// is reached only after every check passed.
    mutating func read(into buffer: UnsafeMutableRawBufferPointer, from source: some CheckedSource) throws(AssetPackError) -> Int {
        let count: Int
        do { count = try bytes.read(into: buffer, from: source) } catch { throw failure(error) }
        if let sha256 { sha256.hasher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<count])) }
        if bytes.isVerified { try checkSHA256() }
        return count
    }

    /// Counts and hashes `chunk`, the next bytes; throws before taking any when they would pass the expected size.
    mutating func take(_ chunk: UnsafeRawBufferPointer) throws(AssetPackError) {
        do { try bytes.take(chunk) } catch { throw failure(error) }
        sha256?.hasher.update(chunk)
    }

    /// Every byte was taken: throws the mismatch unless they are exactly the expected ones; returns their CRC-32.
    @discardableResult
    mutating func finish() throws(AssetPackError) -> UInt32 {
        if !bytes.isVerified {
            do { try bytes.finish() } catch { throw failure(error) }
        }
        try checkSHA256()
        return bytes.crc32
    }

    private mutating func checkSHA256() throws(AssetPackError) {
        guard let sha256, !hashChecked else { return }
        hashChecked = true
        let found = sha256.hasher.finalizeHex()
        guard found == sha256.expected else {
            throw failure(CheckedStream.mismatch("SHA-256", expected: "\(sha256.expected) (\(expectation.claim))", found: found,
                                                 code: .verification))
        }
    }

    /// The error for `error`, met while reading or checking these bytes: the mismatch when it is one.
    func failure(_ error: ZipError) -> AssetPackError {
        Self.mismatch(error, path: path, origin: origin, entry: entry)
    }

    /// The one error of bytes that are not what was expected (`error` says what differed: a size, CRC-32 or
    /// SHA-256 mismatch, or deflate data that does not decode), for the file at `path` whose bytes come from
    /// `origin` (entry `entry` of it); any other error of the zip layer as ``ErrorLocation/error(_:)`` places it.
    static func mismatch(_ error: ZipError, path: AssetPath, origin: ErrorLocation, entry: String?) -> AssetPackError {
        guard [.sizeMismatch, .checksum, .corruptData, .verification].contains(error.code) else { return origin.error(error) }
        let from = entry.map { " from entry \"\($0)\"" } ?? ""
        var mismatch = origin.error(.verification, "\"\(path)\"\(from): \(error.message)", entry: entry)
        mismatch.zipError = error
        return mismatch
    }
}
