import Foundation

/// Damage done to an installed tree, the way an app, a user or a failing disk does it: for the tests of
/// `status`, `expand --verify` and `uninstall`.
package enum TreeDamage {
    /// Removes the file at `path`.
    package static func delete(_ path: String) throws {
        try FileManager.default.removeItem(atPath: path)
    }

    /// Cuts the file at `path` to `size` bytes.
    package static func truncate(_ path: String, to size: Int) throws {
        try writeBytes(Array(try fileBytes(path).prefix(size)), to: path)
    }

    /// Inverts the bits of the byte at `offset` of the file at `path`, in place (same size, same inode).
    package static func flipByte(_ path: String, at offset: UInt64) throws {
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        try handle.seek(toOffset: offset)
        let byte = try handle.read(upToCount: 1) ?? Data()
        try handle.seek(toOffset: offset)
        try handle.write(contentsOf: Data(byte.map { ~$0 }))
    }

    /// Puts a folder holding one file where the file at `path` was.
    package static func replaceByFolder(_ path: String) throws {
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        try writeBytes(Array("inside".utf8), to: path + "/inside.txt")
    }

    /// The permission bits of `path`.
    package static func permissions(_ path: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue
    }

    /// Sets the modification time of `path` (to make a reported install time known).
    package static func setModified(_ path: String, _ date: Date) throws {
        try FileManager.default.setAttributes([.modificationDate: date], ofItemAtPath: path)
    }
}
