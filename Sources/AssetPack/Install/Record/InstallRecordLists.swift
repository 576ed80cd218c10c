import AssetPackSystem

/// The record of a staging tree (``InstallRecord``) as `installed.json`: gathered a window of a plan at a time
/// (``add(_:checksums:)``) and written once the tree is complete (``write(into:source:stamp:)``). Each of its
/// three lists — folders, files, links — is kept as JSON text (``InstallRecordJSON``), in memory up to
/// ``defaultMemoryLimit`` bytes and beyond that in a temporary file of the record folder (``Spool``), so the
/// record of a tree is written without its entries ever being all in hand.
final class InstallRecordLists {
    /// Bytes of a list's text kept in memory, by default, before it goes to its temporary file.
    static let defaultMemoryLimit = 1 << 20

    private let folder: Descriptor
    private var directories: Spool
    private var files: Spool
    private var links: Spool

    /// Lists whose text beyond `memoryLimit` bytes each goes to temporary files in the record folder of `tree`.
    init(tree: Descriptor, memoryLimit: Int = defaultMemoryLimit) throws(AssetPackError) {
        folder = try io(tree.directory(StagingNames.recordDirectory, creatingWith: PermissionPolicy.defaultDirectory))
        directories = Spool(name: StagingNames.temporaryPrefix + "directories.json", memoryLimit: memoryLimit)
        files = Spool(name: StagingNames.temporaryPrefix + "files.json", memoryLimit: memoryLimit)
        links = Spool(name: StagingNames.temporaryPrefix + "links.json", memoryLimit: memoryLimit)
    }

    /// Adds every item of `plan`, the files with their CRC-32s from `checksums` (by item index).
    func add(_ plan: ExpansionPlan, checksums: ResultSlots<UInt32>) throws(AssetPackError) {
        // By index, not `for item in items`: copying each item whole (its origin, path and hashes) would
        // cost more than writing its line.
        for position in plan.items.indices {
            switch plan.items[position].kind {
            case .directory:
                Self.line(of: position, in: plan, checksums: checksums, to: &directories.json)
                try directories.handOver(in: folder)
            case .file:
                Self.line(of: position, in: plan, checksums: checksums, to: &files.json)
                try files.handOver(in: folder)
            case .symlink:
                Self.line(of: position, in: plan, checksums: checksums, to: &links.json)
                try links.handOver(in: folder)
            }
        }
    }

    /// The record's line for the item at `position` of `plan`, appended to `json`'s current list.
    private static func line(of position: Int, in plan: ExpansionPlan, checksums: ResultSlots<UInt32>,
                             to json: inout InstallRecordJSON) {
        let items = plan.items
        switch items[position].kind {
        case .directory:
            json.directory(mode: items[position].permissions, path: items[position].path.string)
        case .file:
            json.file(crc32: checksums[position], mode: items[position].permissions, path: items[position].path.string,
                      digest: items[position].digest, size: items[position].size)
        case .symlink:
            json.link(path: items[position].path.string, target: items[position].symlinkTarget ?? "")
        }
    }

    /// Writes `installed.json` (and the source file) from the lists into the record folder, before the
    /// tree is flushed (``InstallRecord/writeContents(into:source:stamp:json:)``), then removes the temporary files.
    func write(into tree: Descriptor, source: String?, stamp: String) throws(AssetPackError) {
        try InstallRecord.writeContents(into: tree, source: source, stamp: stamp) { (emit) throws(AssetPackError) in
            var json = InstallRecordJSON()
            json.begin(directories: true)
            try json.handOverAll(to: emit)
            try directories.emit(to: emit, from: folder)
            json.beginFiles(afterDirectories: true)
            try json.handOverAll(to: emit)
            try files.emit(to: emit, from: folder)
            json.endFiles(format: InstallRecord.currentFormat, links: true)
            try json.handOverAll(to: emit)
            try links.emit(to: emit, from: folder)
            try json.end(afterLinks: true, source: source, stamp: stamp, to: emit)
        }
        try Self.removeTemporaries(in: folder)
    }

    /// Removes the temporary files of the lists from the record folder `folder` (left by an interrupted run).
    static func removeTemporaries(in folder: Descriptor) throws(AssetPackError) {
        for name in ["directories.json", "files.json", "links.json"] { try io(folder.remove(StagingNames.temporaryPrefix + name)) }
    }

    /// One list's text: what ``json`` holds, then what is in memory, then (past ``memoryLimit``) its file.
    private struct Spool {
        let name: String
        /// Bytes kept in memory before they go to the file.
        let memoryLimit: Int
        /// The entries not handed over yet.
        var json = InstallRecordJSON()
        /// The text handed over, until it goes to the file.
        private var memory: [UInt8] = []
        /// The temporary file, once the text outgrew memory.
        private var file: Descriptor?

        init(name: String, memoryLimit: Int) {
            self.name = name
            self.memoryLimit = memoryLimit
        }

        /// Moves the text of ``json``, when it is a whole piece, to memory or to the file.
        mutating func handOver(in folder: Descriptor) throws(AssetPackError) {
            var text: [UInt8] = []
            json.handOver { (piece: borrowing [UInt8]) in text = copy piece }
            guard !text.isEmpty else { return }
            try keep(text, in: folder)
        }

        private mutating func keep(_ text: [UInt8], in folder: Descriptor) throws(AssetPackError) {
            if file == nil && memory.count + text.count <= memoryLimit { return memory.append(contentsOf: text) }
            if file == nil {
                try io(folder.remove(name))
                file = try io(folder.createFile(name))
            }
            let path = folder.child(name)
            if !memory.isEmpty {
                try io(file!.fd.writeAll(memory, path: path))
                memory = []
            }
            try io(file!.fd.writeAll(text, path: path))
        }

        /// Hands the whole text to `emit`: the file's, then what is in memory and in ``json``.
        mutating func emit(to emit: (borrowing [UInt8]) throws(AssetPackError) -> Void, from folder: Descriptor) throws(AssetPackError) {
            var rest: [UInt8] = []
            json.handOverAll { (piece: borrowing [UInt8]) in rest = copy piece }
            if file != nil {
                try keep(rest, in: folder)
                let reader = try io(folder.openFile(name))
                let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 << 10, alignment: 16)
                defer { chunk.deallocate() }
                while true {
                    let count = try io(reader.fd.read(into: chunk, path: reader.path))
                    if count == 0 { break }
                    try emit(Array(UnsafeRawBufferPointer(rebasing: chunk[0..<count])))
                }
            } else {
                try emit(memory)
                try emit(rest)
            }
        }
    }
}
