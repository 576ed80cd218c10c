extension AssetPath {
    /// True when the last component names a zip archive: it ends in `.zip`, in any case, with something
    /// before it (`photos.zip`, `A.ZIP`). A file named just `.zip` is a hidden file without an extension
    /// (a leading dot starts no extension), not an archive. The one rule for both sides: the expander
    /// unzips such files of a tree without a manifest, and the packer never packs or deflates them.
    package var isZipArchiveName: Bool {
        // Only ASCII lowercases to ".zip", so the last four bytes decide, but for a name that is not ASCII,
        // where the Character-wise test below can differ (a combining mark, a prepended mark).
        let verdict: Bool? = withUTF8 { bytes in
            let nameStart = (bytes.lastIndex(of: AssetPath.slash) ?? -1) + 1
            guard bytes.count - nameStart > 4,
                  zip(bytes.suffix(4), ".zip".utf8).allSatisfy({ ((0x41...0x5A).contains($0) ? $0 | 0x20 : $0) == $1 }) else { return false }
            return bytes[nameStart...].allSatisfy { $0 < 0x80 } ? true : nil
        }
        if let verdict { return verdict }
        let name = self.name
        return name.utf8.count > 4 && name.lowercased().hasSuffix(".zip")
    }
}
