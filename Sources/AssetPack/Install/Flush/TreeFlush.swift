import AssetPackSystem

/// Puts the staging tree on the device before its stamp is written, paying for as little of other
/// programs' writes as it can. Two ways, both complete:
///
/// - **per file:** `fsync(2)` of every file of the plan, then of every folder (deepest first, the staging
///   folder last), on several threads (they wait for the device, not the CPU). A worker takes ``batch``
///   files at a time, starts the write-back of each, then flushes each: on a journaling file system the
///   first `fsync` then commits the whole batch. What else was tried: the CrashSafety article.
/// - **whole file system:** one `syncfs(2)`, which waits for every dirty page of the file system, other
///   programs' included (on a phone, every app shares the data partition).
///
/// `syncfs` is used when what the whole system has waiting for write-back (Linux's `/proc/meminfo`) is at
/// most ``foreignBytesPerFile`` per file of the plan, the point where both cost the same; per-file flushes
/// otherwise, and where there is no `syncfs`.
///
/// A file that cannot be opened again for reading (written with no read permission for its owner) makes
/// the flush fall back to one `syncfs` (or, without it, nothing is lost: such files were flushed as written).
enum TreeFlush {
    /// Threads that issue flushes, at most.
    static let threads = 16
    /// Files per unit of work (consecutive in path order, so a worker's folder cursor is reused), each held
    /// open by its worker until the batch is flushed.
    static let batch = 16
    /// Descriptors a worker holds besides its batch's files (its folder cursor), at most.
    static let cursorDescriptors = 4

    /// Descriptors the flush may hold at once: half the process's limit (`ulimit -n`; macOS allows 256 by
    /// default), 1,024 when it is unknown, so that a low limit means fewer threads and smaller batches, not a
    /// failed install.
    static var descriptorBudget: Int { Int(min(CurrentProcess.openFileLimit ?? 2048, 1 << 20)) / 2 }

    /// Bytes of pending write-back that cost as much to wait for as one file's `fsync` (40 µs at 0.33 ms
    /// a MiB, rounded up; measured on the benchmark machine).
    static let foreignBytesPerFile: UInt64 = 128 << 10

    /// Flushes every file and folder of `plan` in `staging`, then `staging` itself, except the files at the
    /// positions `skipping` (already on the device: linked from a flushed tree). `openFolders`: folders not in
    /// the plan that its items were written into (a window's, made by an earlier window), flushed with its own.
    /// Where one `syncfs` is the way, it flushes nothing and returns true: the caller owes one `syncfs` of
    /// `staging` (a windowed install pays it once, after its last window). `wholeFileSystem` forces one way
    /// (for tests); nil chooses.
    static func flushUnlessWholeFileSystem(_ plan: ExpansionPlan, in staging: Descriptor, wholeFileSystem: Bool? = nil,
                                           skipping: Set<Int> = [], openFolders: [AssetPath] = []) throws(AssetPackError) -> Bool {
        let files = plan.items.indices.filter { plan.items[$0].kind == .file && !skipping.contains($0) }
        let folders = plan.items.lazy.filter { $0.kind == .directory }.count  // each flushed on its own too
        if wholeFileSystem ?? wholeFileSystemIsCheaper(files: files.count + folders + openFolders.count) {
            return true
        }
        if try flushFiles(files, of: plan, in: staging) { try io(staging.fd.syncFileSystem(path: staging.path)) }
        let paths = plan.items.filter { $0.kind == .directory && !$0.path.isRoot }.map(\.path) + openFolders
        try flushFolders(paths, in: staging)
        return false
    }

    /// Flushes the files `also` names that exist, in a folder directly below `staging` (the record's, written
    /// after the tree's own files were flushed), that folder, and `staging`.
    static func flushRecord(in staging: Descriptor, also: (folder: String, files: [String])) throws(AssetPackError) {
        if try !flushFiles(also.files, inFolder: also.folder, of: staging) { try io(staging.fd.syncFileSystem(path: staging.path)) }
        try io(staging.fd.sync(path: staging.path))
    }

    /// Flushes `names` that exist in `folder` directly below `staging`, then the folder; false when one could
    /// not be opened for lack of permission.
    private static func flushFiles(_ names: [String], inFolder name: String, of staging: Descriptor) throws(AssetPackError) -> Bool {
        guard let folder = try io(staging.existingDirectory(at: [name])) else { return true }
        var readable = true
        for name in names where try io(folder.status(name))?.kind == .file {
            guard let file = try openForFlush(name, in: folder) else {
                readable = false
                continue
            }
            try io(file.fd.sync(path: file.path))
        }
        try io(folder.fd.sync(path: folder.path))
        return readable
    }

    /// True when `syncfs` has less to wait for than `files` per-file (or per-folder) flushes would cost.
    static func wholeFileSystemIsCheaper(files: Int) -> Bool {
        guard FileDescriptor.canSyncFileSystem, let pending = FileSystem.pendingWritebackBytes() else { return false }
        return pending <= UInt64(files) * foreignBytesPerFile
    }

    /// Flushes the files at `positions`; returns true when one could not be opened for lack of permission.
    private static func flushFiles(_ positions: [Int], of plan: ExpansionPlan, in staging: Descriptor) throws(AssetPackError) -> Bool {
        let budget = descriptorBudget
        let size = max(1, min(batch, budget / 2))
        let batches = stride(from: 0, to: positions.count, by: size).map { positions[$0..<min($0 + size, positions.count)] }
        let jobs = max(1, min(threads, batches.count, budget / (size + cursorDescriptors)))
        let cursors = PerWorker(count: jobs) { DirectoryCursor(root: staging) }
        let denied = ResultSlots<Bool>(count: jobs)
        try WorkerThreads.run(count: batches.count, jobs: jobs) { (index, worker) throws(AssetPackError) in
            var opened: [Descriptor] = []
            opened.reserveCapacity(size)
            for position in batches[index] {
                let path = plan.items[position].path
                let folder = try io(cursors[worker].parent(ofPath: path.string))
                guard let file = try openForFlush(path.name, in: folder) else {
                    denied[worker] = true
                    continue
                }
                file.fd.startWriteback()
                opened.append(file)
            }
            for file in opened { try io(file.fd.sync(path: file.path)) }
        }
        return (0..<jobs).contains { denied[$0] == true }
    }

    /// `name` in `folder` opened to be flushed; nil when it cannot be opened for reading (no permission).
    private static func openForFlush(_ name: String, in folder: Descriptor) throws(AssetPackError) -> Descriptor? {
        do {
            return try folder.openFile(name, .noFollow)
        } catch where error.errno == .permissionDenied {
            return nil
        } catch {
            throw AssetPackError(error)
        }
    }

    /// Flushes the folders at `paths`, deepest first so that a folder's entry is flushed after its
    /// contents, then `staging`.
    private static func flushFolders(_ paths: [AssetPath], in staging: Descriptor) throws(AssetPackError) {
        let folders = paths.map(\.components).sorted { $0.count > $1.count }
        let batches = stride(from: 0, to: folders.count, by: batch).map { folders[$0..<min($0 + batch, folders.count)] }
        let jobs = max(1, min(threads, batches.count, descriptorBudget / cursorDescriptors))
        try WorkerThreads.run(count: batches.count, jobs: jobs) { (index, _) throws(AssetPackError) in
            for components in batches[index] {
                guard let folder = try io(staging.existingDirectory(at: components)) else { continue }
                try io(folder.fd.sync(path: folder.path))
            }
        }
        try io(staging.fd.sync(path: staging.path))
    }
}
