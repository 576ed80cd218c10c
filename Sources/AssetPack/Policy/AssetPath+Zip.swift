extension AssetPath {
    /// True when the last component names a zip archive: it ends in `.zip`, in any case, with something
    /// before it (`photos.zip`, `A.ZIP`). A file named just `.zip` is a hidden file without an extension
    /// (a leading dot starts no extension), not an archive. The one rule for both sides: the expander
    /// unzips such files of a tree without a manifest, and the packer never packs or deflates them.
    package var isZipArchiveName: Bool {
        let name = self.name
        return name.utf8.count > 4 && name.lowercased().hasSuffix(".zip")
    }
}
