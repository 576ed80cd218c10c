import AssetPackZip

#if canImport(Glibc)
import Glibc
#elseif canImport(Android)
import Android
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A byte range of a file read with `pread`, from any number of threads at once: how a stored asset
/// is read with random access (``NDKAsset/fileRange()``), so a zip stored in the APK is opened with its
/// central directory (``ZipArchive``) instead of forward-only. Owns its descriptor.
public final class DescriptorRange: RandomAccessSource {
    /// The descriptor read, closed when the value goes away.
    public let descriptor: Int32
    /// Where the range starts in the file.
    public let offset: UInt64
    /// The range's length in bytes.
    public let size: UInt64
    /// What the bytes are, for messages.
    public let name: String

    /// Takes ownership of `descriptor` and reads `size` bytes of it from `offset` on.
    public init(descriptor: Int32, offset: UInt64, size: UInt64, name: String) {
        self.descriptor = descriptor
        self.offset = offset
        self.size = size
        self.name = name
    }

    deinit { Self.close(descriptor) }

    /// Fills `buffer` from `position` of the range on; fewer bytes only at its end.
    /// - Throws: ``ZipError`` with code `.io` and the errno when `pread` fails.
    public func read(into buffer: UnsafeMutableRawBufferPointer, at position: UInt64) throws(ZipError) -> Int {
        guard position < size, let base = buffer.baseAddress else { return 0 }
        let wanted = Int(min(UInt64(buffer.count), size - position))
        guard let start = off_t(exactly: offset + position), start <= off_t.max - off_t(wanted) else {
            // 32-bit Android: off_t is 32 bits there.
            throw ZipError(.io, "offset \(offset + position) is beyond this platform's file offsets", archive: name)
        }
        var done = 0
        while done < wanted {
            let count = pread(descriptor, base + done, wanted - done, start + off_t(done))
            if count > 0 {
                done += count
            } else if count == 0 {
                break
            } else if errno != EINTR {
                throw ZipError(.io, "pread failed: \(String(cString: strerror(errno)))", archive: name, errno: errno)
            }
        }
        return done
    }

    /// Closes a descriptor this type owns.
    static func close(_ descriptor: Int32) {
        #if canImport(Glibc)
        _ = Glibc.close(descriptor)
        #elseif canImport(Android)
        _ = Android.close(descriptor)
        #elseif canImport(Musl)
        _ = Musl.close(descriptor)
        #elseif canImport(Darwin)
        _ = Darwin.close(descriptor)
        #endif
    }
}
