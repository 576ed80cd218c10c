import AssetPackZip

/// A source as the planners read it: resolved once (``SourceAccess``), so that every file's origin is
/// named in a plain form the installer understands (``ExpansionItem/Origin``) without asking the source
/// again.
struct ResolvedSource: Sendable {
    /// The source's storage and capabilities.
    let access: SourceAccess
    private let reading: Reading

    /// How the files of the source are read.
    private enum Reading: Sendable {
        /// With the source's `open`.
        case stream
        /// From the folder on disk.
        case localFile(root: String)
        /// As entries of the source archive below its folder `root`.
        case zipEntry(ArchiveHandle, root: String)
    }

    init(_ source: any AssetSource) {
        access = SourceAccess(source)
        reading = switch access.storage {
        case .folder(let root): .localFile(root: root)
        case .archive(let archive, let root): .zipEntry(ArchiveHandle(opened: archive), root: root)
        case .opaque, .packedBundle, .delivered: .stream
        }
    }

    /// The source.
    var source: any AssetSource { access.source }

    /// The source's name.
    var name: String { access.name }

    /// The folder on disk that ``ExpansionItem/Origin/localFile(_:)`` origins are below, when the source is one.
    var folder: String? {
        guard case .localFile(let root) = reading else { return nil }
        return root
    }

    /// The source archive and the folder of it the tree starts at, when the source is an archive.
    var archive: (handle: ArchiveHandle, root: String)? {
        guard case .zipEntry(let handle, let root) = reading else { return nil }
        return (handle, root)
    }

    /// Where the bytes of the source's file at `path` come from.
    func origin(of path: AssetPath) -> ExpansionItem.Origin {
        switch reading {
        case .stream: .stream(path)
        case .localFile: .localFile(path)
        case .zipEntry(let handle, let root): .zipEntry(handle, entryName: ZipArchive.entryName(path, root: root))
        }
    }
}
