import AssetPack
import AssetPackZip
import Foundation
import AssetPackPacker

/// What a tree holds at one path: a folder, or a file's bytes and executable bit.
package enum Node: Equatable, CustomStringConvertible {
    case directory
    case file([UInt8], executable: Bool)

    package var description: String {
        switch self {
        case .directory: "directory"
        case .file(let bytes, let executable): "file(\(bytes.count) bytes, crc \(CRC32.checksum(bytes))\(executable ? ", executable" : ""))"
        }
    }
}

/// Every path below `root` (relative, `/`-separated) and what is there. The bookkeeping folder at the top
/// (`assetpack-meta`, or an install's `.assetpack`) is left out when `skippingReserved`.
package func snapshot(_ root: String, skippingReserved: Bool = true) throws -> [String: Node] {
    var result: [String: Node] = [:]
    func walk(_ relative: String) throws {
        let full = relative.isEmpty ? root : root + "/" + relative
        for name in try FileManager.default.contentsOfDirectory(atPath: full) {
            if relative.isEmpty && skippingReserved && BundleManifest.isReservedName(name) { continue }
            let path = relative.isEmpty ? name : relative + "/" + name
            let attributes = try FileManager.default.attributesOfItem(atPath: root + "/" + path)
            if attributes[.type] as? FileAttributeType == .typeDirectory {
                result[path] = .directory
                try walk(path)
            } else {
                let permissions = (attributes[.posixPermissions] as? Int) ?? 0
                result[path] = .file(try fileBytes(root + "/" + path), executable: permissions & 0o100 != 0)
            }
        }
    }
    try walk("")
    return result
}

/// Every file below `root` (the reserved folder included) with its bytes: what "byte-identical bundles" compares.
package func bundleBytes(_ root: String) throws -> [String: Node] { try snapshot(root, skippingReserved: false) }

/// Reads a bundle's manifest.
package func readManifest(_ bundle: String) throws -> BundleManifest {
    try BundleManifest.read(bytes: fileBytes(bundle + "/" + BundleManifest.path), origin: bundle)
}

/// A test-only, manifest-driven unpacker (the real expander lives in AssetPack and is written separately):
/// it creates every folder, copies plain files, inflates packed entries with ``ZipArchive``, and checks
/// each file's size and CRC-32 against the manifest.
package enum TestUnpacker {
    package struct Mismatch: Error, CustomStringConvertible {
        package var description: String
    }

    /// Unpacks the bundle folder `bundle` into the new folder `destination`; returns the manifest.
    @discardableResult
    package static func unpack(bundle: String, to destination: String) throws -> BundleManifest {
        let manifest = try readManifest(bundle)
        guard try identityFileMatches(bundle, manifest) else { throw Mismatch(description: "identity file differs") }
        for entry in manifest.entries {
            let target = destination + "/" + entry.path
            guard entry.kind == .file, let storage = entry.storage else {
                try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
                continue
            }
            let contents: [UInt8]
            switch storage.form {
            case .plain:
                contents = try fileBytes(bundle + "/" + storage.file)
            case .packed:
                let archive = try ZipArchive(path: bundle + "/" + storage.file)
                let zipEntry = try archive.requireEntry(named: storage.entry ?? "")
                // Pack archives, and with immutable names every archive, are in the bookkeeping folder.
                let packArchive = storage.file.hasPrefix(BundleManifest.reservedDirectory + "/")
                guard archive.entries.count == 1 || packArchive, zipEntry.compressedSize == storage.compressedSize,
                      (zipEntry.method == .deflate ? "deflate" : "stored") == storage.method else {
                    throw Mismatch(description: "\(storage.file) does not match the manifest")
                }
                contents = try archive.contents(of: zipEntry)
            }
            try write(contents, to: target, entry: entry)
        }
        return manifest
    }

    /// Unpacks a one-zip bundle (`--archive`) into `destination`; returns the manifest.
    @discardableResult
    package static func unpack(archive path: String, to destination: String) throws -> BundleManifest {
        let archive = try ZipArchive(path: path)
        let manifest = try BundleManifest.read(bytes: archive.contents(of: archive.requireEntry(named: BundleManifest.path)), origin: path)
        let identity = try archive.contents(of: archive.requireEntry(named: BundleManifest.identityPath))
        guard identity == Array(manifest.identity.utf8) else { throw Mismatch(description: "identity file differs") }
        for entry in manifest.entries {
            let target = destination + "/" + entry.path
            guard entry.kind == .file, let storage = entry.storage else {
                try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
                continue
            }
            guard storage.form == .plain else { throw Mismatch(description: "\(entry.path) is not plain in an archive") }
            try write(archive.contents(of: archive.requireEntry(named: storage.file)), to: target, entry: entry)
        }
        return manifest
    }

    private static func write(_ contents: [UInt8], to target: String, entry: BundleManifest.Entry) throws {
        guard UInt64(contents.count) == entry.size, CRC32.checksum(contents) == entry.crc32 else {
            throw Mismatch(description: "\(entry.path): size or CRC-32 differs from the manifest")
        }
        try FileManager.default.createDirectory(atPath: (target as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        try Data(contents).write(to: URL(fileURLWithPath: target))
        try FileManager.default.setAttributes([.posixPermissions: entry.mode == 0o755 ? 0o755 : 0o644], ofItemAtPath: target)
    }
}

/// Checks `.assetpack/identity` holds exactly the manifest's identity, no newline.
package func identityFileMatches(_ bundle: String, _ manifest: BundleManifest) throws -> Bool {
    try fileBytes(bundle + "/" + BundleManifest.identityPath) == Array(manifest.identity.utf8)
}

/// Builds `source` into `output` with the folder packer.
@discardableResult
/// `packMemberLimit` is 0 unless given: most tests were written for the layout with one archive per
/// packed file and small files copied (`PackArchiveTests` cover pack archives, the default).
package func build(_ source: String, _ output: String, threshold: UInt64 = PackingRules.defaultThreshold, level: Int = 6,
           followSymlinks: Bool = false, jobs: Int = BuildOptions.defaultJobs, packMemberLimit: UInt64 = 0,
           progress: ProgressHandler? = nil) throws -> BuildSummary {
    var rules = PackingRules(threshold: threshold, level: level)
    rules.packMemberLimit = packMemberLimit
    let options = BuildOptions(rules: rules, followSymlinks: followSymlinks, jobs: jobs)
    return try Packer(options: options).build(source: source, output: output, progress: progress)
}

/// Runs `body`, expecting an ``AssetPackError``; returns it.
package func expectError(_ body: () throws -> Void) -> AssetPackError? {
    do {
        try body()
        return nil
    } catch let error as AssetPackError {
        return error
    } catch {
        return nil
    }
}

extension BundleManifest {
    /// The manifest whose JSON is `bytes`, read and checked as a bundle's is (its identity included).
    public static func read(bytes: [UInt8], origin: String) throws(AssetPackError) -> BundleManifest {
        try read(MemoryStream(bytes), origin: origin)
    }
}
