import Foundation

/// The bytes of a file.
package func fileBytes(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }

/// Writes bytes to a file.
package func writeBytes(_ bytes: [UInt8], to path: String) throws { try Data(bytes).write(to: URL(fileURLWithPath: path)) }

/// The inode number of `path` (not following a symlink).
package func inodeNumber(_ path: String) -> UInt64? {
    (try? FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? NSNumber)?.uint64Value
}

/// Creates the folder holding `path` (ZipWriter does not).
package func makeParent(_ path: String) throws {
    try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
}

/// Names in the folder `path`, sorted.
package func folderNames(_ path: String) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted()
}

/// Hidden names (assetpack's staging and previous trees would be) in the folder `path`, sorted.
package func hiddenNames(_ path: String) -> [String] {
    folderNames(path).filter { $0.hasPrefix(".") }
}

/// Creates an (empty) folder and its parents.
package func mkdir(_ path: String) throws {
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
}

/// Sets a file's permission bits.
package func chmod(_ path: String, _ mode: Int) throws {
    try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
}

/// The text of the install record `installed.json` at `path` without what differs between two installs of one
/// tree: each file's `inode` and `mtime` (which file on the device it is).
package func recordTextWithoutInodes(_ path: String) throws -> String {
    try String(decoding: fileBytes(path), as: UTF8.self)
        .replacingOccurrences(of: #""inode":[0-9]+,"#, with: "", options: .regularExpression)
        .replacingOccurrences(of: #","mtime":[0-9]+"#, with: "", options: .regularExpression)
}
