import AssetPackSystem
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

    /// The permission bits the item at `path` (a `kind` of the tree) gets: what the source states for it,
    /// through ``PermissionPolicy``: a folder source states the mode on disk (`lstat`), an archive source the
    /// entry's (``ArchiveEntryPolicy``); an implied folder, an entry without a Unix mode and a `list`/`open`
    /// source state none, and get the defaults.
    /// - Throws: `.io` when the node on disk cannot be examined.
    func permissions(of path: AssetPath, kind: ExpansionItem.Kind) throws(AssetPackError) -> UInt32 {
        let directory = kind == .directory
        switch access.storage {
        case .folder(let root):
            let stated = try Self.statedOnDisk(root.hasSuffix("/") ? root + path.string : root + "/" + path.string, directory: directory)
            return directory ? PermissionPolicy.directory(stated) : PermissionPolicy.file(stated)
        case .archive(let archive, let root):
            return Self.inArchive(archive, ZipArchive.entryName(path, root: root), directory: directory)
        case .opaque, .packedBundle, .delivered:
            return directory ? PermissionPolicy.defaultDirectory : PermissionPolicy.defaultFile
        }
    }

    /// The permission bits of the node at `diskPath` when it is a folder (`directory`) or a regular file as
    /// expected; nil when it is gone or something else (the install then finds it changed).
    private static func statedOnDisk(_ diskPath: String, directory: Bool) throws(AssetPackError) -> UInt32? {
        guard let node = try io(FileSystem.status(diskPath)), node.kind == (directory ? .directory : .file) else { return nil }
        return node.permissions
    }

    /// The permission bits of the file or folder entry `name` of `archive` (a folder's entry is named with a
    /// trailing `/`, or marked a directory by its mode); the defaults when there is none.
    private static func inArchive(_ archive: ZipArchive, _ name: String, directory: Bool) -> UInt32 {
        guard directory else { return archive.entry(named: name).map(ArchiveEntryPolicy.filePermissions) ?? PermissionPolicy.defaultFile }
        let entry = archive.entry(named: name + "/") ?? archive.entry(named: name).flatMap { $0.kind == .directory ? $0 : nil }
        return entry.map(ArchiveEntryPolicy.directoryPermissions) ?? PermissionPolicy.defaultDirectory
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
