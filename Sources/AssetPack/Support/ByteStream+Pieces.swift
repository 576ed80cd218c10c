import AssetPackZip

extension ByteStream {
    /// Reads the stream to its end in pieces of up to `bufferSize` bytes, handing each to `body` (one buffer,
    /// reused). A read error is reported as coming from `name`.
    func forEachPiece(name: String, bufferSize: Int = 256 * 1024,
                      _ body: (UnsafeRawBufferPointer) throws(AssetPackError) -> Void) throws(AssetPackError) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bufferSize, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count: Int
            do { count = try read(into: buffer) } catch { throw AssetPackError(error.inArchive(name)) }
            if count == 0 { return }
            try body(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
        }
    }
}
