/// `withUnsafe…Bytes` for bodies that throw ``AssetPackError`` (the standard ones rethrow untyped errors).
extension Array where Element == UInt8 {
    func withBytesThrowingAssetPackError<Result>(
        _ body: (UnsafeRawBufferPointer) throws(AssetPackError) -> Result
    ) throws(AssetPackError) -> Result {
        try withUnsafeBytes { raw in Swift.Result { () throws(AssetPackError) in try body(raw) } }.get()
    }

    mutating func withMutableBytesThrowingAssetPackError<Result>(
        _ body: (UnsafeMutableRawBufferPointer) throws(AssetPackError) -> Result
    ) throws(AssetPackError) -> Result {
        try withUnsafeMutableBytes { raw in Swift.Result { () throws(AssetPackError) in try body(raw) } }.get()
    }
}
