import AssetPackZip

/// Reaching a logical file's bytes where the manifest says they are stored: a plain file of `base`, or an
/// entry of a packing archive read with random access when `base` offers it and forward-only otherwise.
extension PackedBundleSource {
    /// Opens the plain file stored at `stored` for the logical file `path`.
    func openStored(_ stored: AssetPath, for path: AssetPath) throws(AssetPackError) -> any ByteStream {
        do {
            return try base.open(stored)
        } catch {
            throw missingStorage(error, stored, for: path)
        }
    }

    /// Opens entry `entry` of the archive stored at `archive` for the logical file `path`.
    func openPacked(_ entry: String, in archive: AssetPath, for path: AssetPath) throws(AssetPackError) -> any ByteStream {
        guard let zip = try randomAccessArchive(archive, for: path) else {
            return try streamEntry(entry, of: archive, for: path)
        }
        let found = try requireEntry(entry, in: zip, archive: archive, for: path)
        return try zipLayer(zip.open(found))
    }

    /// The bytes of the stored file for random access: a plain file as `base` gives it, or a stored entry
    /// of a packing archive as a byte range; nil when neither is possible.
    func randomAccessBytes(of file: PackedBundleTree.File, for path: AssetPath) throws(AssetPackError) -> (any RandomAccessSource)? {
        switch file.location {
        case .plain(let stored):
            do {
                return try baseAccess.randomAccess(stored)
            } catch {
                throw missingStorage(error, stored, for: path)
            }
        case .packed(let archive, let entry):
            guard let zip = try randomAccessArchive(archive, for: path) else { return nil }
            return try zip.storedSlice(of: try requireEntry(entry, in: zip, archive: archive, for: path))
        }
    }

    /// The archive stored at `archive`, opened with random access (once, for a pack archive:
    /// ``PackArchiveCache``); nil when `base` cannot give it that way.
    private func randomAccessArchive(_ archive: AssetPath, for path: AssetPath) throws(AssetPackError) -> ZipArchive? {
        try packArchives.archive(at: archive) { () throws(AssetPackError) -> ZipArchive? in try openArchive(archive, for: path) }
    }

    private func openArchive(_ archive: AssetPath, for path: AssetPath) throws(AssetPackError) -> ZipArchive? {
        let bytes: (any RandomAccessSource)?
        do {
            bytes = try baseAccess.randomAccess(archive)
        } catch {
            throw missingStorage(error, archive, for: path)
        }
        guard let bytes else { return nil }
        return try zipLayer(ZipArchive(source: bytes))
    }

    /// Reads the archive stored at `archive` front to back up to entry `entry`; the reader then yields its data.
    private func streamEntry(_ entry: String, of archive: AssetPath, for path: AssetPath) throws(AssetPackError) -> any ByteStream {
        let reader = ZipStreamReader(try openStored(archive, for: path), name: "\(base.name): \(archive)")
        while let next = try zipLayer(reader.nextEntry()) {
            if next.name == entry { return reader }
        }
        throw missingEntry(entry, archive: archive, for: path)
    }

    private func requireEntry(_ name: String, in zip: ZipArchive, archive: AssetPath,
                              for path: AssetPath) throws(AssetPackError) -> ZipEntry {
        guard let entry = zip.entry(named: name) else { throw missingEntry(name, archive: archive, for: path) }
        return entry
    }

    /// "Not found" from `base` for a file the manifest lists means the bundle is incomplete, not that the
    /// logical path is missing.
    private func missingStorage(_ error: AssetPackError, _ stored: AssetPath, for path: AssetPath) -> AssetPackError {
        guard error.code == .notFound else { return error }
        return AssetPackError(.manifest, "the manifest stores it at \"\(stored)\", which the bundle lacks", path: shown(path))
    }

    private func missingEntry(_ entry: String, archive: AssetPath, for path: AssetPath) -> AssetPackError {
        AssetPackError(.manifest, "the manifest stores it as entry \"\(entry)\" of \"\(archive)\", which has no such entry",
                       path: shown(path))
    }
}
