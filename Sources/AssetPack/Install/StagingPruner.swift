import AssetPackZip

/// Resumes an interrupted build: walks the staging tree against the plan and keeps every file that has
/// the planned size and permissions after reading it once more for its CRC-32, which must match the plan
/// when the plan knows it (a crash could have left it half-written, and a crash of the whole machine
/// could have lost unflushed data). A file whose CRC the plan does not know is created with no permission
/// bits and gets its planned ones only once complete (``FileMaterializer``). Everything else — files not
/// complete or not matching, temporaries, stray names, links, files of the wrong size — is removed.
/// Returns the kept files' CRCs by item index.
struct StagingPruner {
    let root: Descriptor
    let plan: ExpansionPlan

    func prune() throws(AssetPackError) -> [Int: UInt32] {
        var index: [AssetPath: Int] = [:]
        for (position, item) in plan.items.enumerated() { index[item.path] = position }
        var kept: [Int: UInt32] = [:]
        try prune(root, at: .root, index: index, kept: &kept)
        return kept
    }

    private func prune(_ folder: Descriptor, at path: AssetPath, index: [AssetPath: Int],
                       kept: inout [Int: UInt32]) throws(AssetPackError) {
        for name in try folder.names() {
            if path.isRoot && name == StagingNames.recordDirectory { continue }
            guard let child = try? path.appending(name), let status = try folder.status(name),
                  let position = index[child], !name.hasPrefix(StagingNames.temporaryPrefix) else {
                try TreeRemoval.remove(name, in: folder)
                continue
            }
            let item = plan.items[position]
            if status.kind == .directory && item.kind == .directory {
                try prune(try folder.directory(name), at: child, index: index, kept: &kept)
            } else if status.kind == .file && item.kind == .file && status.size == item.size
                        && status.permissions == item.permissions, let crc = try checksum(name, in: folder),
                      item.crc32 == nil || item.crc32 == crc {
                kept[position] = crc
            } else {
                try TreeRemoval.remove(name, in: folder)
            }
        }
    }

    private func checksum(_ name: String, in folder: Descriptor) throws(AssetPackError) -> UInt32? {
        let path = folder.path + "/" + name
        let file = Descriptor(try FileSystem.openFile(name, in: folder.fd, path: path), path: path)
        return try FileChecksum.crc32(of: file)
    }
}

/// The CRC-32 of an open file, read front to back.
enum FileChecksum {
    static func crc32(of file: Descriptor) throws(AssetPackError) -> UInt32 {
        var crc = CRC32()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 * 1024, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count = try FileSystem.read(file.fd, into: buffer, path: file.path)
            if count == 0 { return crc.value }
            crc.update(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
        }
    }
}
