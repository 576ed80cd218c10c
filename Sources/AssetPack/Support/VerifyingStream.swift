import AssetPackZip

/// A stream that checks another stream against a size and CRC-32 recorded elsewhere (a bundle manifest),
/// the way ``ZipEntryReader`` checks an entry against its headers: it never hands out more than
/// `expectedSize` bytes, and it confirms the exact size and the CRC-32 before it hands out the last bytes,
/// so damaged data throws instead of ending.
///
/// Failures are ``ZipError``s with code ``ZipError/Code/verification`` whose `archive` is the name given
/// here; ``AssetPackError/init(_:path:)`` turns them into ``AssetPackError/Code/verification`` naming it.
/// Errors of the wrapped stream pass through unchanged. After an error the stream stays failed.
public final class VerifyingStream: ByteStream {
    /// The bytes the data must have.
    public let expectedSize: UInt64
    /// The CRC-32 the data must have.
    public let expectedCRC: UInt32
    /// What is being read, for messages (a path).
    public let name: String
    private let stream: any ByteStream
    private var crc = CRC32()
    private var produced: UInt64 = 0
    private var finished = false
    private var failure: ZipError?

    /// Wraps `stream`, which must yield exactly `expectedSize` bytes whose CRC-32 is `expectedCRC`.
    public init(_ stream: any ByteStream, expectedSize: UInt64, expectedCRC: UInt32, name: String) {
        self.stream = stream
        self.expectedSize = expectedSize
        self.expectedCRC = expectedCRC
        self.name = name
    }

    /// Bytes handed out so far.
    public var bytesRead: UInt64 { produced }

    /// Fills `buffer` with the next bytes; returns 0 at the end, which is reached only after size and
    /// CRC-32 checked out.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(ZipError) -> Int {
        if let failure { throw failure }
        do {
            return try step(into: buffer)
        } catch {
            failure = error
            throw error
        }
    }

    private func step(into buffer: UnsafeMutableRawBufferPointer) throws(ZipError) -> Int {
        if finished || buffer.count == 0 { return 0 }
        if produced == expectedSize {
            try finish()
            return 0
        }
        let wanted = Int(min(UInt64(buffer.count), expectedSize - produced))
        let count = try stream.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<wanted]))
        guard count > 0 else { throw mismatch("data ends after \(produced) bytes, but \(expectedSize) are recorded") }
        crc.update(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
        produced += UInt64(count)
        if produced == expectedSize { try finish() }
        return count
    }

    /// All recorded bytes are out: the wrapped stream must end here, and the CRC must match.
    private func finish() throws(ZipError) {
        var extra: UInt8 = 0
        let more = try withUnsafeMutableBytes(of: &extra) { (byte) throws(ZipError) -> Int in try stream.read(into: byte) }
        guard more == 0 else { throw mismatch("data is longer than the \(expectedSize) bytes recorded") }
        guard crc.value == expectedCRC else {
            throw mismatch("CRC-32 mismatch: expected \(Self.hex(expectedCRC)), data has \(Self.hex(crc.value))")
        }
        finished = true
    }

    private func mismatch(_ message: String) -> ZipError {
        ZipError(.verification, message, archive: name)
    }

    private static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }
}
