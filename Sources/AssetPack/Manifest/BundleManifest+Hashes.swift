extension BundleManifest.Entry {
    /// Throws `.manifest` when a hash the entry carries is not 64 lowercase hex digits, or its block hashes
    /// do not pair one to one with its block index.
    func checkHashes(origin: String) throws(AssetPackError) {
        if let sha256, !ContentDigest.isHex(sha256) {
            throw AssetPackError(.manifest, "manifest entry \"\(path)\" has a SHA-256 that is not 64 lowercase hex digits", path: origin)
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
    /// True for 64 lowercase hex digits.
    package static func isHex(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { utf8 in
            guard utf8.count == 64 else { return false }
            var invalid: UInt8 = 0  // branch-free over all 64 bytes
            for byte in utf8 { invalid |= (byte &- 0x30) < 10 || (byte &- 0x61) < 6 ? 0 : 1 }
            return invalid == 0
        }
    }
}
