import AssetPackSystem

/// The installer's own small files (stamp, record, staging marker): written to a temporary name and
/// renamed, so each is either absent or whole (flushed first when `durable`); read with a size limit.
enum SmallFiles {
    /// Writes `bytes` to `name` in `directory` atomically; `durable` flushes the bytes before the rename
    /// (the caller flushes `directory` when the rename itself must survive a power loss).
    static func write(_ bytes: [UInt8], to name: String, in directory: Descriptor, durable: Bool) throws(AssetPackError) {
        try write(to: name, in: directory, durable: durable) { (write) throws(AssetPackError) in try write(bytes) }
    }

    /// Writes what `produce` hands to its argument, piece by piece, to `name` in `directory` atomically
    /// (as ``write(_:to:in:durable:)``): a large file never has to be whole in memory.
    static func write(to name: String, in directory: Descriptor, durable: Bool,
                      _ produce: ((borrowing [UInt8]) throws(AssetPackError) -> Void) throws(AssetPackError) -> Void) throws(AssetPackError) {
        let temporary = StagingNames.temporaryPrefix + name
        let display = directory.path + "/" + name
        try io(directory.remove(temporary))
        let file = try io(directory.createFile(temporary))
        try produce { (bytes) throws(AssetPackError) in
            try bytes.withBytesThrowingAssetPackError { (raw) throws(AssetPackError) in try io(file.fd.writeAll(raw, path: display)) }
        }
        try io(file.fd.setPermissions(PermissionPolicy.defaultFile, path: display))
        if durable { try io(file.fd.sync(path: display)) }
        try io(directory.rename(temporary, to: name, in: directory))
    }

    /// The contents of `name` in `directory`, or nil when it does not exist (or is not a regular file).
    static func read(_ name: String, in directory: Descriptor, limit: Int) throws(AssetPackError) -> [UInt8]? {
        guard let status = try io(directory.status(name)), status.kind == .file else { return nil }
        // Non-blocking: a FIFO put in its place after the look never hangs the open.
        let file = try io(directory.openFile(name, .nonBlocking))
        guard try io(file.status()).kind == .file else { return nil }
        return try readAll(file, limit: limit)
    }

    private static func readAll(_ file: Descriptor, limit: Int) throws(AssetPackError) -> [UInt8] {
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: min(limit + 1, 64 * 1024))
        while true {
            let count = try chunk.withMutableBytesThrowingAssetPackError { (raw) throws(AssetPackError) -> Int in
                try io(file.fd.read(into: raw, path: file.path))
            }
            if count == 0 { return result }
            result.append(contentsOf: chunk[0..<count])
            guard result.count <= limit else {
                throw AssetPackError(.limitExceeded, "file is larger than \(limit) bytes", path: file.path)
            }
        }
    }
}
