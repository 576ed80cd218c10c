import AssetPackZip
import CAndroidAssets

/// One open asset (`AAsset*`), read front to back; closed when the value goes away. Use it from one
/// thread at a time (as any `ByteStream`).
///
/// A deflated entry of the APK is inflated by Android as it is read; a stored one is read from the APK
/// and can also be handed out for random access with ``fileRange()``.
public final class NDKAsset: ByteStream {
    private let asset: OpaquePointer
    /// The asset's name below `assets/`, for messages.
    public let name: String

    init(_ asset: OpaquePointer, name: String) {
        self.asset = asset
        self.name = name
    }

    deinit { AAsset_close(asset) }

    /// The uncompressed length in bytes.
    /// - Note: The corresponding C function is `AAsset_getLength64`.
    public var length: UInt64 { UInt64(max(0, AAsset_getLength64(asset))) }

    /// Fills up to `buffer.count` bytes; 0 at the end.
    /// - Throws: `ZipError` with code `.io` naming the asset when Android cannot read it (a damaged
    ///   deflate stream, an I/O error under the mapping).
    /// - Note: The corresponding C function is `AAsset_read`.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(ZipError) -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        let count = AAsset_read(asset, base, min(buffer.count, 1 << 30))
        guard count >= 0 else { throw ZipError(.io, "AAsset_read failed (\(count))", archive: name) }
        return Int(count)
    }

    /// The asset's bytes as a range of a file, for random access from any thread: a new descriptor of
    /// the APK (owned by the result), and where in it the bytes lie. Nil for an asset Android stores
    /// compressed: the NDK hands out only stored ones.
    /// - Note: The corresponding C function is `AAsset_openFileDescriptor64`.
    public func fileRange() -> SliceSource? {
        var start: Int64 = 0
        var length: Int64 = 0
        let descriptor = AAsset_openFileDescriptor64(asset, &start, &length)
        guard descriptor >= 0, let file = try? FileSource(descriptor: descriptor, name: name) else { return nil }
        guard start >= 0, length >= 0, UInt64(start) + UInt64(length) <= file.size else { return nil }
        return SliceSource(file, offset: UInt64(start), length: UInt64(length), name: name)
    }
}
