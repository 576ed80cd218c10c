/// Where a ``ZipWriter`` puts its bytes: appended front to back, with earlier bytes patched in place (a
/// local header whose sizes are known only after the data). ``OutputFile`` writes a file; a test may
/// keep the bytes in memory instead (a run-length buffer holds a 4 GiB entry of zeros in a few bytes).
package protocol ZipOutput: AnyObject {
    /// The name of what is written, for messages (a path).
    var path: String { get }
    /// Bytes written so far (the offset of the next byte).
    var position: UInt64 { get }
    /// Appends `bytes`.
    func write(_ bytes: UnsafeRawBufferPointer) throws(ZipError)
    /// Overwrites bytes at `offset`, which must be before ``position``.
    func patch(_ bytes: [UInt8], at offset: UInt64) throws(ZipError)
    /// Hands buffered bytes on.
    func flush() throws(ZipError)
    /// Flushes, then makes the bytes durable.
    func sync() throws(ZipError)
}

extension ZipOutput {
    /// Appends `bytes`.
    func write(_ bytes: [UInt8]) throws(ZipError) {
        try bytes.withRawBytes { (raw) throws(ZipError) in try write(raw) }
    }
}
