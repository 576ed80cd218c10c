extension BundleManifest {
    /// Where a logical file's bytes are in the bundle.
    enum Location: Sendable {
        /// Byte for byte at this bundle path.
        case plain(AssetPath)
        /// Entry `entry` of the zip at bundle path `archive`.
        case packed(archive: AssetPath, entry: String)
    }
}

extension BundleManifest.Entry {
    /// Where this file's bytes are in the bundle: the one reading of ``BundleManifest/Storage``, used by
    /// the packed-bundle view and by the planner alike.
    /// - Parameter origin: where the manifest was read, for messages.
    /// - Throws: `.manifest` when the entry has no storage, its storage path is not a safe non-empty
    ///   relative path, or a packed entry names no archive entry.
    func location(origin: String) throws(AssetPackError) -> BundleManifest.Location {
        guard let storage else { throw Self.refuse("entry \"\(path)\" lacks size, CRC-32 or storage", origin) }
        let stored: AssetPath
        do {
            stored = try AssetPath(storage.file)
        } catch {
            throw Self.refuse("lists an \(error.message)", origin)
        }
        if stored.isRoot { throw Self.refuse("entry \"\(path)\" has an empty storage path", origin) }
        switch storage.form {
        case .plain:
            return .plain(stored)
        case .packed:
            guard let inner = storage.entry, !inner.isEmpty else {
                throw Self.refuse("packed entry \"\(path)\" does not name its archive entry", origin)
            }
            return .packed(archive: stored, entry: inner)
        }
    }

    private static func refuse(_ message: String, _ origin: String) -> AssetPackError {
        AssetPackError(.manifest, "manifest \(message)", path: origin)
    }
}
