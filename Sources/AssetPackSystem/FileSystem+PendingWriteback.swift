extension FileSystem {
    /// Bytes of the whole system waiting to be written to a device: `Dirty` plus `Writeback` of Linux's
    /// `/proc/meminfo`. Nil elsewhere or when it cannot be read. What a whole-file-system flush (`syncfs`)
    /// would wait for, other programs' writes included.
    package static func pendingWritebackBytes() -> UInt64? {
        #if os(Linux)
        guard let text = try? smallProcFile("/proc/meminfo") else { return nil }
        var total: UInt64 = 0
        var found = 0
        for line in text.split(separator: "\n") where line.hasPrefix("Dirty:") || line.hasPrefix("Writeback:") {
            let fields = line.split(separator: " ")
            guard fields.count >= 2, let kib = UInt64(fields[1]) else { return nil }
            total += kib * 1024
            found += 1
        }
        return found == 2 ? total : nil
        #else
        return nil
        #endif
    }

    /// The text of a small file of `/proc` (read until end of file, at most 64 KiB).
    static func smallProcFile(_ path: String) throws(SystemError) -> String {
        let file = try FileDescriptor.open(path)
        defer { file.close() }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 1)
        defer { buffer.deallocate() }
        var count = 0
        while count < buffer.count {
            let read = try file.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[count...]), path: path)
            if read == 0 { break }
            count += read
        }
        return String(decoding: UnsafeRawBufferPointer(rebasing: buffer[..<count]), as: UTF8.self)
    }
}
