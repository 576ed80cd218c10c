import AssetPackSystem

/// Checks, before anything is written, that the destination's file system has room for the files to
/// write (each rounded up to whole blocks), a block per folder, and the record.
enum SpacePreflight {
    /// Throws ``AssetPackError/Code/noSpace`` saying how much is needed and how much is free.
    static func check(sizes: [UInt64], directories: Int, on folder: Descriptor, destination: String,
                      freeOverride: UInt64? = nil) throws(AssetPackError) {
        let space = try io(folder.fd.freeSpace(path: folder.path))
        let (free, block) = (space.free, space.blockSize)
        let needed = sizes.reduce(UInt64(directories + 16) * block) { $0 + ($1 + block - 1) / block * block }
        let available = freeOverride ?? free
        guard needed > available else { return }
        throw AssetPackError(.noSpace, "not enough free space: the expansion needs \(ByteCount.text(needed)), "
                             + "but only \(ByteCount.text(available)) are free", path: destination)
    }
}
