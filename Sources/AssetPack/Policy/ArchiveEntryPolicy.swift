import AssetPackZip

/// What every archive entry must be before anything is written, wherever the archive sits (inside a tree,
/// or given as the source): its name is one safe relative path, its bytes can be read, and the sizes it
/// declares are not a bomb. Each refusal names the archive and the entry.
///
/// **Names.** The name must be a valid ``AssetPath``; an empty name is refused. A name without the UTF-8 flag (APPNOTE 4.4.4
/// bit 11) is IBM code page 437 text by the zip specification, so bytes that are not UTF-8 are accepted as
/// that text (`caf` + 0x82 is `café`); a name *with* the flag whose bytes are not UTF-8 is refused, because
/// the archive contradicts itself.
///
/// **`./`.** A name's leading `./` is dropped (any number of them), and a folder entry that is `./` alone
/// is the folder the archive is expanded into (`bsdtar -a -cf x.zip .` writes `./`, `./a/`, `./a/b.txt`, which
/// `unzip` and 7-Zip extract so). A `.` anywhere else in a name is still refused.
///
/// **Kinds.** An entry whose mode says FIFO, socket or device (`EntryKind.special`) is written as a regular
/// file holding its data, with the default permissions, as `unzip` does (`some-command | zip out.zip -`
/// records the pipe's FIFO mode). A FIFO or device on disk in a folder source is still refused.
enum ArchiveEntryPolicy {
    /// True when the entry is expanded as a regular file: a file entry, or a FIFO, socket or device entry.
    static func isFile(_ entry: ZipEntry) -> Bool {
        entry.kind == .file || entry.kind == .special
    }

    /// The permission bits of the file an entry becomes (see ``isFile(_:)``): the entry's own through
    /// ``PermissionPolicy``, else the default: for an entry that states none (made where no Unix mode is
    /// recorded: `versionMadeBy` names another host, or the external attributes hold no mode) and for a
    /// FIFO, socket or device entry, whose bits describe the node, not the data.
    static func filePermissions(_ entry: ZipEntry) -> UInt32 {
        PermissionPolicy.file(entry.kind == .file ? entry.permissions : nil)
    }

    /// The permission bits of the folder a directory entry becomes: the entry's own through
    /// ``PermissionPolicy``, else (an entry that states none) the default.
    static func directoryPermissions(_ entry: ZipEntry) -> UInt32 {
        PermissionPolicy.directory(entry.permissions)
    }

    /// The entry's path relative to where its archive is unpacked. `relativeName` is the part of the name
    /// below the source's root, when the archive is the source and has one.
    /// - Throws: ``AssetPackError/Code/unsafePath`` naming the entry.
    static func path(of entry: ZipEntry, relativeName: String? = nil, archive: ErrorLocation) throws(AssetPackError) -> AssetPath {
        var shown: String { AssetPath.quoted(entry.name) }  // only for messages: quoting costs more than the checks
        if entry.rawNameCount == 0 {
            throw archive.error(.unsafePath, "entry \(shown) has an unsafe name: it is empty", entry: entry.name)
        }
        if entry.flags & utf8Flag != 0, !entry.nameIsRawBytes, String(validating: entry.rawName, as: UTF8.self) == nil {
            let hex = entry.rawName.prefix(64).map { String($0, radix: 16) }.joined(separator: " ")
            throw archive.error(.unsafePath, "entry \(shown) has an unsafe name: flagged as UTF-8, but the bytes (\(hex)) are not UTF-8",
                                entry: entry.name)
        }
        let name = relativeName ?? entry.name
        let checked = EntryName.pathName(name)
        if checked.isEmpty {
            guard entry.kind == .directory else {
                throw archive.error(.unsafePath, "entry \(shown) has an unsafe name: it names the folder the archive is expanded into",
                                    entry: entry.name)
            }
            return .root
        }
        do {
            return try AssetPath(checked)
        } catch {
            // Said of the entry, with the reason its (checked) name is refused: a '..' component, an absolute path, …
            let reason = AssetPath.problem(withPath: checked) ?? error.message
            throw archive.error(.unsafePath, "entry \(shown) has an unsafe name: \(reason)", entry: entry.name)
        }
    }

    /// Refuses an entry whose data this package cannot read (``ZipEntry/checkReadable()``): encrypted,
    /// patched, or compressed with a method other than stored and deflate.
    /// - Throws: ``AssetPackError/Code/unsupported`` naming the entry and the method or encryption.
    static func checkReadable(_ entry: ZipEntry, archive: ErrorLocation) throws(AssetPackError) {
        do throws(ZipError) { try entry.checkReadable() } catch {
            throw archive.error(.unsupported, "entry \(AssetPath.quoted(entry.name)): \(error.message)", entry: entry.name)
        }
    }

    /// Refuses an entry whose *declared* sizes already exceed the compression-ratio limit, before any byte
    /// is read (the reader checks the real ratio again while inflating, since declared sizes can lie).
    /// - Throws: ``AssetPackError/Code/limitExceeded`` naming the entry and the limit.
    static func checkDeclaredRatio(_ entry: ZipEntry, limits: ZipLimits, archive: ErrorLocation) throws(AssetPackError) {
        do throws(ZipError) { try limits.checkDeclaredRatio(of: entry) } catch {
            throw archive.error(.limitExceeded, "entry \(AssetPath.quoted(entry.name)) \(error.message)", entry: entry.name)
        }
    }

    /// APPNOTE 4.4.4 bit 11: the name and comment are UTF-8.
    private static let utf8Flag: UInt16 = 1 << 11
}
