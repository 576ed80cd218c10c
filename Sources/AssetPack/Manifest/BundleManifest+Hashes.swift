extension BundleManifest.Entry {
    /// Throws `.manifest` when a hash the entry carries is not 64 lowercase hex digits, its block hashes
    /// do not pair one to one with its block index, its chunks were cut by a rule this code does not know, or its
    /// patches do not read.
    func checkHashes(origin: String) throws(AssetPackError) {
        if let chunking = storage?.chunking, ContentChunking(name: chunking) == nil || storage?.blockSHA256 == nil {
            throw AssetPackError(.manifest, "manifest entry \"\(path)\" is cut into chunks by \"\(chunking)\", which this "
                                 + "version does not know, or lacks their SHA-256s", path: origin)
        }
        if let sha256, !ContentDigest.isHex(sha256) {
            throw AssetPackError(.manifest, "manifest entry \"\(path)\" has a SHA-256 that is not 64 lowercase hex digits", path: origin)
        }
        if let patches = storage?.patches {
            guard storage?.chunking != nil, ContentDigest.isHex(patches.baseSHA256), (try? AssetPath(patches.file)) != nil,
                  patches.runs.allSatisfy({ $0.count == 4 && $0[1] > 0 && $0[3] > 0 }) else {
                throw AssetPackError(.manifest, "manifest entry \"\(path)\" has patches without chunks, or with a base SHA-256, "
                                     + "a file or runs that do not read ([first chunk, chunk count, offset, length] each)", path: origin)
            }
        }
        guard let hashes = storage?.blockSHA256 else { return }
        guard hashes.count == storage?.blocks?.count, hashes.allSatisfy(ContentDigest.isHex) else {
            throw AssetPackError(.manifest, "manifest entry \"\(path)\" has block SHA-256s that do not match its "
                                 + "\(storage?.blocks?.count ?? 0) blocks", path: origin)
        }
    }
}

/// SHA-256 digests as manifests write them: 64 lowercase hex digits.
package enum ContentDigest {
    /// True for 64 lowercase hex digits (``SHA256Digest/init(hex:)`` reads them).
    package static func isHex(_ text: String) -> Bool {
        SHA256Digest(hex: text) != nil
    }
}
