import AssetPackSystem

/// Which paths of an installed tree its record (`installed.json.gz`) claims, asked in walk order: what the sweep
/// for unknown entries (``UnknownEntries``) needs. The record's files and links are read alongside the walk
/// (``OrderedRecord``), one entry at a time; its folders (and the folders above them) are kept as a set of
/// 64-bit hashes. Each path asked about must come after the last one in ``AssetPath`` order (a folder's
/// ``isFolder(_:)`` after its ``isEntry(_:)``), as a walk taking each folder's names in byte order asks.
final class RecordedPaths {
    private var files: RecordList<InstallRecord.File>
    private var links: RecordList<InstallRecord.Link>
    private var folders: Set<UInt64> = []

    /// The record `record`.
    init(_ record: OrderedRecord) {
        files = record.files()
        links = record.links()
        var list = record.directories()
        while let folder = list.head?.path {
            var path = folder[...]
            while !path.isEmpty, folders.insert(Self.hash(path)).inserted, let slash = path.lastIndex(of: UInt8(ascii: "/")) {
                path = path[..<slash]
            }
            list.advance()
        }
    }

    /// True when the record lists `path` as a file or a symbolic link.
    func isEntry(_ path: [UInt8]) -> Bool {
        files.skip(before: path)
        links.skip(before: path)
        return files.head?.path == path || links.head?.path == path
    }

    /// True when the record lists `path` as a folder or lists something below it.
    func isFolder(_ path: [UInt8]) -> Bool {
        if folders.contains(Self.hash(path[...])) { return true }
        let key = path + [UInt8(ascii: "/")]
        files.skip(before: key)
        links.skip(before: key)
        return files.isBelow(path) || links.isBelow(path)
    }

    /// Reads the files and links the walk did not reach; true when each entry came after the one before it
    /// and the lists were whole records' lists: the answers given were the record's.
    func readToEndInOrder() -> Bool {
        files.skip(before: [0xFF])
        links.skip(before: [0xFF])
        return files.inOrder && links.inOrder && !files.isBroken && !links.isBroken
    }

    /// The hash a path's bytes are kept as (also ``RecordedPathSet``'s).
    static func hash(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        bytes.withUnsafeBytes { MurmurHash64A.hash($0, seed: 0x243F_6A88_85A3_08D3) }
    }
}
