import AssetPackZip

/// Writes one file item into a tree the only safe way: into a fresh temporary name (`O_EXCL`, never
/// through a symlink), streaming the bytes while computing the CRC-32, then checking the exact size and
/// the CRC, setting the permissions, and only then renaming it to its final name. A file under its final
/// name has therefore always been verified; a temporary left by a crash is recognizable and removed.
struct FileMaterializer {
    let source: any AssetSource
    let progress: ProgressTracker

    /// Writes `item` into `directory` (its parent folder); returns the CRC-32 of what was written.
    func write(_ item: ExpansionItem, number: Int, into directory: Descriptor) throws(AssetPackError) -> UInt32 {
        let temporary = StagingNames.temporaryPrefix + String(number)
        let display = directory.path + "/" + item.path.name
        try FileSystem.remove(temporary, in: directory.fd, isDirectory: false, path: display)
        let file = Descriptor(try FileSystem.createFile(temporary, in: directory.fd, path: display), path: display)
        do {
            let crc = try copy(item, into: file)
            try FileSystem.setPermissions(file.fd, item.permissions, path: display)
            try FileSystem.rename(temporary, in: directory.fd, to: item.path.name, in: directory.fd, path: display)
            return crc
        } catch {
            try? FileSystem.remove(temporary, in: directory.fd, isDirectory: false, path: display)
            throw error
        }
    }

    /// Streams the item's bytes into `file`; checks size and CRC-32 against the plan.
    private func copy(_ item: ExpansionItem, into file: Descriptor) throws(AssetPackError) -> UInt32 {
        let (stream, origin) = try ItemSource.open(item, in: source)
        var crc = CRC32()
        var written: UInt64 = 0
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 * 1024, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            try progress.checkCancelled()
            let count: Int
            do { count = try stream.read(into: buffer) } catch { throw AssetPackError(error.inArchive(origin)) }
            if count == 0 { break }
            guard written + UInt64(count) <= item.size else { throw ItemSource.sizeMismatch(item, origin: origin, found: "more than \(item.size) bytes") }
            let chunk = UnsafeRawBufferPointer(rebasing: buffer[0..<count])
            crc.update(chunk)
            try FileSystem.writeAll(file.fd, chunk, path: file.path)
            written += UInt64(count)
            progress.advance(bytes: UInt64(count))
        }
        guard written == item.size else { throw ItemSource.sizeMismatch(item, origin: origin, found: "\(written) bytes") }
        if let expected = item.crc32, expected != crc.value {
            throw AssetPackError(.verification, "\"\(item.path)\" has CRC-32 \(hexCRC(crc.value)), expected \(hexCRC(expected))",
                                 path: origin)
        }
        return crc.value
    }
}

/// Opens the bytes of a file item, checking an archive entry against the plan first.
enum ItemSource {
    /// The stream and the name to use for it in messages.
    static func open(_ item: ExpansionItem, in source: any AssetSource) throws(AssetPackError) -> (any ByteStream, String) {
        switch item.origin {
        case .sourceFile(let path):
            return (try source.open(path), source.name + "/" + path.string)
        case .archiveEntry(let handle, let name):
            let archive = try handle.archive()
            let origin = handle.displayName
            guard let entry = archive.entry(named: name) else {
                throw AssetPackError(.archive, "has no entry \"\(name)\" (needed for \"\(item.path)\")", path: origin)
            }
            if entry.uncompressedSize != item.size || (item.crc32 != nil && entry.crc32 != item.crc32) {
                throw AssetPackError(.verification, "entry \"\(name)\" is \(entry.uncompressedSize) bytes with CRC-32 \(hexCRC(entry.crc32)), "
                                     + "but the plan expects \(item.size) bytes with CRC-32 \(item.crc32.map(hexCRC) ?? "-")", path: origin)
            }
            do { return (try archive.open(entry), origin) } catch { throw AssetPackError(error.inArchive(origin)) }
        case .none:
            throw AssetPackError(.invalidArgument, "\"\(item.path)\" has no data to read")
        }
    }

    static func sizeMismatch(_ item: ExpansionItem, origin: String, found: String) -> AssetPackError {
        AssetPackError(.verification, "\"\(item.path)\" has \(found), expected \(item.size) bytes", path: origin)
    }
}

/// Eight hex digits.
func hexCRC(_ value: UInt32) -> String {
    let digits = String(value, radix: 16)
    return String(repeating: "0", count: 8 - digits.count) + digits
}
