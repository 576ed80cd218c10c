import AssetPackSystem

/// The check ``ExpansionOptions/checksSHA256`` asks for: a written file, read back from its start, must have
/// the SHA-256 its manifest records. Files without one pass, and so do delivered files, checked as they arrived.
enum ContentHashCheck {
    /// Throws `.verification` naming the file when `file` (just written for `item`) does not hash to `item`'s SHA-256.
    static func check(_ file: Descriptor, against item: ExpansionItem) throws(AssetPackError) {
        guard let expected = item.sha256 else { return }
        if case .delivered = item.origin { return }
        guard let found = try BlockBytes.sha256(of: file, 0..<item.size, with: PortableHasher()), found == expected else {
            throw AssetPackError(.verification, "\"\(item.path)\" does not have the SHA-256 its manifest records (\(expected))",
                                 path: file.path)
        }
    }
}
