import AssetPackSystem
import AssetPackZip

/// Writes one file item into a staging tree, verified: created under its final name (`O_EXCL`, never
/// through a symlink), the bytes streamed through the item's ``WriteCheck`` (never past the planned size,
/// CRC-32 computed once as they pass, then size and CRC checked); a file that fails is removed.
///
/// No temporary name: the staging tree is invisible until switched in, and ``ResumeCheck`` keeps a file
/// only when its size, bits and (when the plan knows it) CRC-32 match. So a file with a known CRC-32 is
/// created with its planned bits at once (when the umask leaves them alone); one without (a plain folder
/// without a manifest) is created with **no** bits and gets its planned ones (which always include the
/// owner's read and write, ``PermissionPolicy``) only once complete.
///
/// The item's origin (``ExpansionItem/Origin``) decides the copy: a zip entry is read with the worker's
/// ``ZipReadBuffers``; a local file is opened from the worker's folder descriptor (`O_NOFOLLOW`) and cloned
/// with `FICLONE` where the file system can (then read back for the CRC-32), else copied through the
/// worker's buffer; a stream comes from the source's `open`. No `copy_file_range`: the CRC-32 needs the
/// bytes in a buffer anyway.
///
/// With ``Durability/flushOnCommit``, write-back of a large file is started every 32 MiB, and of every
/// file of at least ``earlyWritebackSize`` when it is finished.
struct FileMaterializer: Sendable {
    /// The source ``ExpansionItem/Origin/stream(_:)`` origins are opened from (``ExpansionPlan/source``).
    let source: any AssetSource
    /// The bundle ``ExpansionItem/Origin/delivered(_:)`` origins are delivered from: the source, when it is one.
    var delivered: DeliveredBundleSource? { if case .delivered(let bundle) = source.storage { bundle } else { nil } }
    /// The folder ``ExpansionItem/Origin/localFile(_:)`` origins are below (``ExpansionPlan/folder``).
    let folder: String?
    let progress: ProgressTracker
    let durability: Durability
    /// Check each file against its SHA-256 (``ExpansionOptions/checksSHA256``), computed as it is written.
    var checksSHA256 = false
    let cloning = CloneSupport()
    /// The process's umask (nil when it cannot be read).
    let creationMask = FileSystem.creationMask()

    /// Files this large have their write-back started when finished (when flushing); for smaller ones a
    /// `sync_file_range` call each costs more system time than it saves at the final flush.
    static let earlyWritebackSize: UInt64 = 64 << 10

    /// Writes `item` as `name` into `directory` (its staging folder: ``StagedFileFolders``) using `worker`'s
    /// buffers; returns the CRC-32 of what was written, and the file's inode and modification time. `keptBlocks`:
    /// for a block-indexed file an interrupted run left unfinished, the blocks its journal records (the file is
    /// then continued, not created).
    func write(_ item: ExpansionItem, as name: String, into directory: Descriptor, using worker: MaterializerWorker,
               keptBlocks: Set<Int> = []) throws(AssetPackError) -> StagedFile {
        let modeAtCreation = finalModeAtCreation(item)
        let file = keptBlocks.isEmpty
            ? try create(name, in: directory, mode: modeAtCreation ? item.permissions : 0)
            : try io(directory.openFile(name, .readWrite))
        do {
            // A packed entry with a block index is inflated on several threads; anything else is streamed.
            var inBlocks = try BlockParallelExtraction.write(item, into: file, named: name, in: directory, keeping: keptBlocks, progress: progress,
                                                             reportsBytes: reportsBytes(of: item),
                                                             startsWriteback: durability == .flushOnCommit)
            if inBlocks == nil {  // a file of a delivered bundle: fetched, not read (DeliveredFileWriter)
                inBlocks = try DeliveredFileWriter.write(item, from: delivered, into: file, named: name, in: directory, keeping: keptBlocks,
                                                         progress: progress, reportsBytes: reportsBytes(of: item))
            }
            let crc = if let inBlocks { inBlocks } else { try fill(file, with: item, using: worker) }
            if checksSHA256, item.sha256 != nil, inBlocks != nil, case .zipEntry = item.origin {
                // Inflated on several threads, so not hashed as written: read back through the check.
                var check = check(item, origin: ErrorLocation(file.path))
                _ = try pass(item, into: nil, worker, check: &check, next: Self.reading(file))
            }
            if !modeAtCreation { try io(file.fd.setPermissions(item.permissions, path: file.path)) }
            if inBlocks != nil { try BlockJournal.remove(for: name, in: directory) }
            if durability == .flushOnCommit, item.size >= Self.earlyWritebackSize { file.fd.startWriteback() }
            return StagedFile(crc32: crc, onDisk: StagedFile.onDisk(try io(file.status())))
        } catch {
            // A large file stopped on request, or by a delivery's server out of reach, keeps what it has: its
            // journal lets the next call go on.
            if (error.code == .cancelled || error.code == .network) && item.journaledBlockCount != nil { throw error }
            try? directory.remove(name)
            try? BlockJournal.remove(for: name, in: directory)
            throw error
        }
    }

    /// True when ``write(_:into:using:)`` reports `item`'s bytes to the progress tracker while writing;
    /// a smaller file's bytes are reported with the file.
    func reportsBytes(of item: ExpansionItem) -> Bool { item.size > UInt64(MaterializerWorker.bufferSize) }

    /// True when `item` can be created with its planned bits right away: a resume re-verifies it against
    /// its known CRC-32, and the umask leaves the bits alone.
    func finalModeAtCreation(_ item: ExpansionItem) -> Bool {
        guard item.crc32 != nil, let creationMask else { return false }
        return item.permissions & creationMask == 0
    }

    /// Creates `name` with permission bits `mode`, readable too (a clone is read back); a name already
    /// there (a file a failed call could not remove) is replaced.
    func create(_ name: String, in directory: Descriptor, mode: UInt32) throws(AssetPackError) -> Descriptor {
        do throws(SystemError) {
            return try directory.createFile(name, readable: true, mode: mode)
        } catch where error.errno == .fileExists {
            try io(directory.remove(name))
            return try io(directory.createFile(name, readable: true, mode: mode))
        } catch {
            throw AssetPackError(error)
        }
    }

    /// Puts the item's bytes into `file` through its ``WriteCheck``; returns their CRC-32.
    private func fill(_ file: Descriptor, with item: ExpansionItem, using worker: MaterializerWorker) throws(AssetPackError) -> UInt32 {
        switch item.origin {
        case .zipEntry(let handle, let name):
            let archive = try handle.archive()
            let previous = item.entryPosition >= 0 ? Int(item.entryPosition) - 1 : worker.lastEntry(in: archive)
            let entry = try ItemSource.checkedEntry(name, of: archive, origin: handle.location, for: item, after: previous)
            return try copy(entry, of: archive, origin: handle.location, item, into: file, worker)
        case .scannedEntry(let handle, let entry):
            return try copy(entry, of: try handle.archive(), origin: handle.location, item, into: file, worker)
        case .localFile(let path):
            if let folder {
                return try copyFile(path, from: worker.tree(at: folder), item, into: file, worker)
            }
            fallthrough  // no folder to read from (a plan never names one without it): through the source
        case .stream:
            let (stream, origin) = try ItemSource.open(item, in: source)
            var check = check(item, origin: origin)
            return try pass(item, into: file, worker, check: &check) { (check, buffer) throws(AssetPackError) -> Int in
                let count: Int
                do throws(ZipError) { count = try stream.read(into: buffer) } catch { throw check.failure(error) }
                try check.take(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
                return count
            }
        case .none, .delivered:
            throw AssetPackError(.invalidArgument, "\"\(item.path)\" has no data to read")
        }
    }

    /// Streams zip entry `entry` (checked against the plan) into `file`, decoded by its reader and checked
    /// by the item's ``WriteCheck`` (the reader's own check is not run: one CRC-32 pass).
    private func copy(_ entry: ZipEntry, of archive: ZipArchive, origin: ErrorLocation, _ item: ExpansionItem,
                      into file: Descriptor, _ worker: MaterializerWorker) throws(AssetPackError) -> UInt32 {
        worker.read(entry, of: archive)
        let reader: ZipEntryReader
        do { reader = try archive.open(entry, buffers: worker.zip) } catch { throw origin.error(error) }
        var check = check(item, origin: origin, entry: entry.name)
        return try pass(item, into: file, worker, check: &check) { (check, buffer) throws(AssetPackError) -> Int in
            try check.read(into: buffer, from: reader)
        }
    }

    /// The check of `item`'s bytes, which come from `origin` (entry `entry` of it): its planned size and
    /// CRC-32, and its SHA-256 when asked to check it.
    private func check(_ item: ExpansionItem, origin: ErrorLocation, entry: String? = nil) -> WriteCheck {
        let claim = entry == nil ? "recorded in the manifest" : "declared in the central directory"
        let sha256 = checksSHA256 ? item.sha256 : nil
        return WriteCheck(path: item.path, size: item.size, crc32: item.crc32, sha256: sha256,
                          hasher: sha256 == nil ? nil : PortableHasher(), claim: claim, origin: origin, entry: entry)
    }

    /// Copies the file at `path` of a folder source into `file`: a clone when the file system can (then
    /// read back through the check), else through the worker's buffer.
    private func copyFile(_ path: AssetPath, from tree: SourceTree, _ item: ExpansionItem, into file: Descriptor,
                          _ worker: MaterializerWorker) throws(AssetPackError) -> UInt32 {
        let (input, size) = try tree.open(path)
        var check = check(item, origin: ErrorLocation(input.path))
        if size == item.size, size >= CloneSupport.minimumSize, cloning.isWorthTrying,
           cloning.record(try io(file.fd.cloneContents(of: input.fd, path: file.path))) {
            progress.advance(bytes: reportsBytes(of: item) ? size : 0)
            return try pass(item, into: nil, worker, check: &check, next: Self.reading(file))
        }
        return try pass(item, into: file, worker, check: &check, next: Self.reading(input))
    }

    /// The next bytes of `input` (from where it stands), taken by the check.
    private static func reading(_ input: Descriptor) -> (inout WriteCheck, UnsafeMutableRawBufferPointer) throws(AssetPackError) -> Int {
        { (check, buffer) throws(AssetPackError) -> Int in
            let count = try io(input.fd.read(into: buffer, path: input.path))
            try check.take(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            return count
        }
    }

    /// Writes the bytes `next` puts in the worker's buffer (having passed them through `check`) into `file`
    /// until it gives none (into nothing when `file` is nil: a clone read back); returns their CRC-32 once
    /// `check` accepted them.
    private func pass(_ item: ExpansionItem, into file: Descriptor?, _ worker: MaterializerWorker, check: inout WriteCheck,
                      next: (inout WriteCheck, UnsafeMutableRawBufferPointer) throws(AssetPackError) -> Int) throws(AssetPackError) -> UInt32 {
        if let file, item.size >= WriteBehind.minimumSize {
            // A large file: decoded here while a helper thread writes (WriteBehind).
            try WriteBehind.write(into: file, written: { count, end in wrote(count, total: end, of: item, to: file) }) {
                (buffer) throws(AssetPackError) -> Int in
                try progress.checkCancelled()
                return try next(&check, buffer)
            }
            return try check.finish()
        }
        var written: UInt64 = 0
        while true {
            try progress.checkCancelled()
            let count = try next(&check, worker.buffer)
            if count == 0 { return try check.finish() }
            guard let file else { continue }
            try io(file.fd.writeAll(UnsafeRawBufferPointer(rebasing: worker.buffer[0..<count]), path: file.path))
            written += UInt64(count)
            wrote(count, total: written, of: item, to: file)
        }
    }

    /// After `count` more bytes of `item` (`total` so far) went into `file`: reports them when the file is
    /// large, and when flushing, starts write-back every ``BlockParallelExtraction/writebackInterval``
    /// bytes, so that a large file is mostly on disk by the time it is finished.
    private func wrote(_ count: Int, total: UInt64, of item: ExpansionItem, to file: Descriptor) {
        guard reportsBytes(of: item) else { return }
        progress.advance(bytes: UInt64(count))
        let interval = BlockParallelExtraction.writebackInterval
        if durability == .flushOnCommit, total / interval != (total - UInt64(count)) / interval {
            file.fd.startWriteback()
        }
    }
}

/// One worker thread's reusable state: a copy buffer, zip read buffers (an input buffer and a zlib
/// stream) and, for a folder source, descriptors of the folders it reads from. Memory is bounded by
/// workers × (two 256 KiB buffers + one zlib stream), whatever the number or size of files.
final class MaterializerWorker {
    /// Bytes of the copy buffer.
    static let bufferSize = 256 * 1024
    /// The copy buffer.
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: MaterializerWorker.bufferSize, alignment: 64)
    /// The zip read buffers.
    let zip = ZipReadBuffers()
    private var sourceTree: SourceTree?
    /// The archive and position of the entry this worker read last.
    private var lastRead: (archive: ObjectIdentifier, position: Int)?

    deinit { buffer.deallocate() }

    /// The position of the entry of `archive` this worker read last; -1 when it read another archive
    /// since, or none. Items come in path order, as the entries of an archive usually are: the next entry
    /// is then the one right after it.
    func lastEntry(in archive: ZipArchive) -> Int {
        guard let lastRead, lastRead.archive == ObjectIdentifier(archive) else { return -1 }
        return lastRead.position
    }

    /// Notes that `entry` of `archive` is read now.
    func read(_ entry: ZipEntry, of archive: ZipArchive) { lastRead = (ObjectIdentifier(archive), entry.index) }

    /// The reader of the folder tree at `root` (the same for every file of an expansion).
    func tree(at root: String) -> SourceTree {
        if let sourceTree { return sourceTree }
        let tree = SourceTree(root: root)
        sourceTree = tree
        return tree
    }
}

/// Reads files of a folder source the way ``DirectorySource`` does — one component at a time with
/// `O_NOFOLLOW`, refusing links and anything but regular files — but from descriptors of its folders
/// kept open between files (``DirectoryCursor``), so a file costs one `openat` and one `fstat`.
final class SourceTree {
    private let root: String
    private var cursor: DirectoryCursor?

    init(root: String) { self.root = root }

    /// The regular file at `path`, open for reading, and its size.
    /// - Throws: `.notFound` when it is missing, `.symlink` for a link, `.unsupported` for anything else.
    func open(_ path: AssetPath) throws(AssetPackError) -> (file: Descriptor, size: UInt64) {
        if cursor == nil { cursor = DirectoryCursor(root: try io(Descriptor.directory(root))) }
        let folder = try io(cursor!.parent(ofPath: path.string))
        let opened: Descriptor?
        do throws(SystemError) {
            // O_NONBLOCK: opening a FIFO must not hang; it is refused just below. Regular files ignore it.
            opened = try folder.openExisting(path.name, .nonBlocking)
        } catch where error.errno == .tooManySymbolicLinkLevels {
            throw AssetPackError(.symlink, "is a symbolic link; links are not followed", path: folder.child(path.name))
        } catch {
            throw AssetPackError(error)
        }
        guard let file = opened else { throw AssetPackError(.notFound, "no such file", path: folder.child(path.name)) }
        let status = try io(file.status())
        guard status.kind == .file else {
            throw AssetPackError(.unsupported, "is not a regular file (a FIFO, socket or device)", path: file.path)
        }
        return (file, status.size)
    }
}

/// Whether `FICLONE` works for this expansion: tried on the first large plain file, and not again once it
/// failed (one failed `ioctl` per expansion on file systems without reflinks).
final class CloneSupport: @unchecked Sendable {
    /// Files smaller than this are copied (a clone saves little and costs a call).
    static let minimumSize: UInt64 = 64 * 1024
    private let monitor = Monitor()
    private var failed = false

    /// False once a clone failed.
    var isWorthTrying: Bool {
        monitor.withLock { !failed }
    }

    /// Notes the outcome of a clone; returns it.
    func record(_ worked: Bool) -> Bool {
        if !worked {
            monitor.withLock { failed = true }
        }
        return worked
    }
}

/// Opens the bytes of a file item, checking an archive entry against the plan first.
enum ItemSource {
    /// The stream and where it reads, for errors.
    static func open(_ item: ExpansionItem, in source: any AssetSource) throws(AssetPackError) -> (any ByteStream, ErrorLocation) {
        switch item.origin {
        case .stream(let path), .localFile(let path):
            return (try source.open(path), ErrorLocation(source.name + "/" + path.string))
        case .zipEntry(let handle, let name):
            let archive = try handle.archive()
            let origin = handle.location
            let entry = try checkedEntry(name, of: archive, origin: origin, for: item)
            do { return (try archive.open(entry), origin) } catch { throw origin.error(error) }
        case .scannedEntry(let handle, let entry):
            let archive = try handle.archive()
            do { return (try archive.open(entry), handle.location) } catch { throw handle.location.error(error) }
        case .none, .delivered:
            throw AssetPackError(.invalidArgument, "\"\(item.path)\" has no data to read")
        }
    }

    /// Entry `name` of `archive`, which must have the item's planned size and CRC-32; looked for first
    /// right after the entry at position `previous` (``ZipArchive/entry(named:after:)``).
    static func checkedEntry(_ name: String, of archive: ZipArchive, origin: ErrorLocation,
                             for item: ExpansionItem, after previous: Int = -1) throws(AssetPackError) -> ZipEntry {
        guard let entry = archive.entry(named: name, after: previous) else {
            throw origin.error(.archive, "has no entry \"\(name)\" (needed for \"\(item.path)\")", entry: name)
        }
        let claim = "recorded in the manifest", declared = "(declared in the central directory)"
        if entry.uncompressedSize != item.size {
            let size = CheckedStream.mismatch("size", expected: "\(item.size) bytes (\(claim))", found: "\(entry.uncompressedSize) \(declared)")
            throw WriteCheck.mismatch(size, path: item.path, origin: origin, entry: name)
        }
        if let crc = item.crc32, entry.crc32 != crc {
            let crc = CheckedStream.mismatch("CRC-32", expected: "\(hex(crc)) (\(claim))", found: "\(hex(entry.crc32)) \(declared)")
            throw WriteCheck.mismatch(crc, path: item.path, origin: origin, entry: name)
        }
        return entry
    }
}
