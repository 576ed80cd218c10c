import AssetPackZip

/// A stream that checks another stream against a size and CRC-32 recorded elsewhere (a bundle manifest)
/// with the zip layer's ``CheckedStream``: never more than `expectedSize` bytes, and the exact size and
/// CRC-32 confirmed before the last bytes are handed out, so damaged data throws instead of ending.
///
/// Failures are ``ZipError``s with code ``ZipError/Code/verification`` whose `archive` is the name given
/// here; ``AssetPackError/init(_:path:)`` turns them into ``AssetPackError/Code/verification`` naming it.
/// Errors of the wrapped stream pass through unchanged. After an error the stream stays failed.
package final class VerifyingStream: ByteStream, CheckedSource {
    private let stream: any ByteStream
    /// What is being read, for messages (a path).
    private let name: String
    private var check: CheckedStream
    private var streamEnded = false

    /// Wraps `stream`, which must yield exactly `expectedSize` bytes whose CRC-32 is `expectedCRC`, as the
    /// manifest records.
    package init(_ stream: any ByteStream, expectedSize: UInt64, expectedCRC: UInt32, name: String) {
        self.stream = stream
        self.name = name
        self.check = CheckedStream(expecting: .init(size: expectedSize, crc32: expectedCRC, claim: "recorded in the manifest"),
                                   mismatchCode: .verification)
    }

    /// Bytes handed out so far.
    package var bytesRead: UInt64 { check.produced }

    /// Fills `buffer` with the next bytes; returns 0 at the end, which is reached only after size and
    /// CRC-32 checked out.
    package func read(into buffer: UnsafeMutableRawBufferPointer) throws(ZipError) -> Int {
        try check.read(into: buffer, from: self)
    }

    package func decode(into buffer: UnsafeMutableRawBufferPointer, produced: UInt64) throws(ZipError) -> Int {
        let count = try stream.read(into: buffer)
        if count == 0 { streamEnded = true }
        return count
    }

    package var hasEnded: Bool { streamEnded }

    package func locate(_ error: ZipError) -> ZipError {
        error.code == .verification ? error.inArchive(name) : error
    }
}
