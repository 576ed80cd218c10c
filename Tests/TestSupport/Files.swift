import AssetPackZip
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

/// The text of the install record of the tree at `tree` without what differs between two installs of one tree:
/// each file's `inode` and `mtime` (which file on the device it is).
package func recordTextWithoutInodes(ofTree tree: String) throws -> String {
    try recordText(ofTree: tree)
        .replacingOccurrences(of: #""inode":[0-9]+,"#, with: "", options: .regularExpression)
        .replacingOccurrences(of: #","mtime":[0-9]+"#, with: "", options: .regularExpression)
}

/// The JSON text of the install record of the tree at `tree` (`.assetpack/installed.json.gz`, inflated).
package func recordBytes(ofTree tree: String) throws -> [UInt8] {
    let compressed = try fileBytes(tree + "/.assetpack/installed.json.gz")
    let inflater = try Inflater.gzip()
    var text: [UInt8] = []
    var output = [UInt8](repeating: 0, count: 64 << 10)
    var offset = 0, finished = false
    while !finished {
        let step = try compressed.withUnsafeBytes { input in
            try output.withUnsafeMutableBytes { try inflater.inflate(UnsafeRawBufferPointer(rebasing: input[offset...]), into: $0) }
        }
        guard step.consumed > 0 || step.produced > 0 || step.finished else { throw RecordTextError(tree: tree) }
        offset += step.consumed
        text += output[0..<step.produced]
        finished = step.finished
    }
    guard offset == compressed.count else { throw RecordTextError(tree: tree) }
    return text
}

/// The install record of a tree is cut short, or has bytes after its gzip data.
package struct RecordTextError: Error { package var tree: String }

/// ``recordBytes(ofTree:)`` as text.
package func recordText(ofTree tree: String) throws -> String { String(decoding: try recordBytes(ofTree: tree), as: UTF8.self) }

/// Writes `text` as the install record of the tree at `tree`, compressed as assetpack writes it
/// (`.assetpack/installed.json.gz`, one gzip member), in place of the record it had.
package func writeRecord(_ text: [UInt8], ofTree tree: String) throws {
    let deflater = try Deflater.gzip(level: 6)
    var compressed: [UInt8] = []
    var output = [UInt8](repeating: 0, count: 64 << 10)
    var offset = 0, finished = false
    while !finished {
        let step = try text.withUnsafeBytes { input in
            try output.withUnsafeMutableBytes { try deflater.deflate(UnsafeRawBufferPointer(rebasing: input[offset...]), into: $0, flush: .finish) }
        }
        offset += step.consumed
        compressed += output[0..<step.produced]
        finished = step.finished
    }
    try FileManager.default.createDirectory(atPath: tree + "/.assetpack", withIntermediateDirectories: true)
    try writeBytes(compressed, to: tree + "/.assetpack/installed.json.gz")
    try? FileManager.default.removeItem(atPath: tree + "/.assetpack/installed.json")
}
