/// `Array.withUnsafe(Mutable)Bytes` with a closure that throws ``ZipError`` (the standard library's
/// versions rethrow `any Error`).
extension Array where Element == UInt8 {
    package func withRawBytes<R>(_ body: (UnsafeRawBufferPointer) throws(ZipError) -> R) throws(ZipError) -> R {
        let result: Result<R, ZipError> = withUnsafeBytes { raw in Result { () throws(ZipError) -> R in try body(raw) } }
        return try result.get()
    }

    package mutating func withMutableRawBytes<R>(_ body: (UnsafeMutableRawBufferPointer) throws(ZipError) -> R) throws(ZipError) -> R {
        let result: Result<R, ZipError> = withUnsafeMutableBytes { raw in Result { () throws(ZipError) -> R in try body(raw) } }
        return try result.get()
    }
}
