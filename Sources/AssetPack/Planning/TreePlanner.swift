import AssetPackSystem
import AssetPackZip

/// Plans a source without a manifest by walking it with ``AssetWalker`` (Android's `list`/`open` rule: a
/// path is a directory when `list` returns children, or when it returns none and `open` fails as
/// not-found). Sizes come from ``SizedAssetSource`` when offered, CRC-32s from the central directory of a
/// source that is an archive (``AssetStorage/archive(_:root:)``); otherwise the file is read once to
/// measure both; permissions from what the source states (``ResolvedSource/permissions(of:kind:)``).
/// Every `.zip` file met is planned as unzipped — one level, never recursively — into its parent folder
/// (`binary/photos.zip` holding `photos/frog.jpg` gives `binary/photos/frog.jpg`), unless
/// ``ExpansionOptions/keepZips`` is set. A bookkeeping folder at the top is refused
/// (``SourceCheck/notBookkeeping(_:source:)``).
struct TreePlanner {
    let source: ResolvedSource
    let options: ExpansionOptions

    func plan() throws(AssetPackError) -> ExpansionPlan {
        try SourceCheck.root(of: source.access.storage)
        var builder = PlanBuilder(source: source.access.fileName, maxTotalBytes: options.maxTotalBytes)
        var modified: [AssetPath: Int64] = [:]
        if let zip = source.archive, !options.testSeam.walksArchives {
            try ArchiveEntryPlanner(source: source.access, options: options)
                .plan(zip.handle, rules: .source(root: zip.root, options: options), builder: &builder)
        } else {
            try walk(into: &builder, modified: &modified)
        }
        let items = builder.takeWindow()
        var tree = TreeIdentity()
        for position in items.indices { tree.add(items[position], modified: modified[items[position].path]) }
        let identity = tree.finalize()
        return ExpansionPlan(sourceName: source.name, items: items, identity: identity, usesManifest: false,
                             stamp: ExpansionPlan.treeStamp(identity, options: options), reading: source)
    }

    /// Walks the source into `builder`; `modified` gets the modification time of each file of a folder source
    /// (for its identity: its contents are not read to plan it).
    private func walk(into builder: inout PlanBuilder, modified: inout [AssetPath: Int64]) throws(AssetPackError) {
        try AssetWalker(source.source, skippingBookkeeping: false).walk { (walked) throws(AssetPackError) in
            let path = walked.path
            try SourceCheck.notBookkeeping(path, source: source.access.fileName)
            guard walked.kind == .file, let file = try fileFacts(path) else {
                try builder.add(.directory(path, permissions: try source.permissions(of: path, kind: .directory)), from: source.name)
                return
            }
            if !options.keepZips && path.isZipArchiveName {
                try ArchiveEntryPlanner(source: source.access, options: options).unpack(path, into: path.parent, builder: &builder)
            } else {
                if file.crc32 == nil, case .folder(let root) = source.access.storage,
                   let status = try io(FileSystem.status(root + "/" + path.string, followingLinks: false)) {
                    modified[path] = status.modifiedNanoseconds
                }
                try builder.add(ExpansionItem(path: path, kind: .file, size: file.size, crc32: file.crc32,
                                              permissions: try source.permissions(of: path, kind: .file), origin: source.origin(of: path)),
                                from: source.name)
            }
        }
    }

    /// Size (and CRC-32 when it had to be read) of a file, or nil for an empty directory.
    private func fileFacts(_ path: AssetPath) throws(AssetPackError) -> (size: UInt64, crc32: UInt32?)? {
        if case .archive(let archive, let root) = source.access.storage,
           let entry = archive.entry(named: ZipArchive.entryName(path, root: root)), ArchiveEntryPolicy.isFile(entry) {
            return (entry.uncompressedSize, entry.crc32)  // the archive's central directory states the CRC
        }
        if let sized = source.access.sized {
            return try sized.size(of: path).map { ($0, nil) }
        }
        let stream: any ByteStream
        do {
            stream = try source.source.open(path)
        } catch where error.code == .notFound {
            return nil
        }
        let measured = try StreamMeasure.measure(stream, name: source.name + "/" + path.string)
        return (measured.size, measured.crc32)
    }
}

/// Reads a stream to the end for its size and CRC-32.
enum StreamMeasure {
    static func measure(_ stream: any ByteStream, name: String) throws(AssetPackError) -> (size: UInt64, crc32: UInt32) {
        var crc = CRC32()
        var size: UInt64 = 0
        try stream.forEachPiece(name: name) { piece in
            crc.update(piece)
            size += UInt64(piece.count)
        }
        return (size, crc.value)
    }
}
