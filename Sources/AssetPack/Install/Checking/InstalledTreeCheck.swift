import AssetPackSystem
import AssetPackZip

/// One way an entry of an installed tree differs from its install record. Encoded: `path`, `kind`, `detail`.
public struct InstalledTreeProblem: Sendable, Hashable, CustomStringConvertible, Encodable {
    /// What differs.
    public enum Kind: String, Sendable, Hashable, Encodable {
        /// The recorded file, folder or link is not there.
        case missing
        /// Something of another type is there: a folder where a file was, a link, a FIFO.
        case type
        /// A file of another size.
        case size
        /// Other permission bits.
        case mode
        /// A file of the recorded size and mode whose CRC-32 differs (found only when contents are read).
        case content
        /// A symbolic link to another target.
        case linkTarget = "link-target"
        /// A file or folder that could not be read, so it could not be checked.
        case unreadable
        /// The record (`.assetpack/installed.json.gz`) is missing or unreadable: nothing could be
        /// checked, and a repair writes every file again.
        case record
    }

    /// The entry, relative to the destination.
    public var path: String
    /// What differs.
    public var kind: Kind
    /// What differs, in words: `"missing"`, `"size 10, recorded 2000"`, `"a folder, recorded a file"`.
    public var detail: String

    /// A problem at `path`.
    public init(path: String, kind: Kind, detail: String) {
        self.path = path
        self.kind = kind
        self.detail = detail
    }

    /// `PATH: DETAIL`.
    public var description: String { "\(path): \(detail)" }
}

/// Compares an installed tree with its ``InstallRecord``, never following a link: every recorded file must
/// be a regular file with the recorded size and permissions (and, when contents are read, CRC-32), every
/// recorded folder a folder with its permissions, every recorded link a link to its target. Whatever is
/// there that the record does not know is listed as unknown (a folder once, its name ending with `/`,
/// not what it holds); the record folder `.assetpack/` itself is left out. Names are compared by their bytes,
/// as ``AssetPath`` compares paths.
///
/// The tree is walked in the record's path order with the record read alongside (``OrderedRecord``). Without
/// contents it costs one `fstatat` per entry; with them every file is read once more, on up to `jobs` threads.
struct InstalledTreeCheck {
    /// The installed tree.
    let tree: Descriptor
    /// Its record.
    let record: OrderedRecord
    /// Read every file for its CRC-32 (the deep check of a repair), or trust size and mode.
    let readContents: Bool
    /// Threads reading contents.
    let jobs: Int
    /// Files read for their CRC-32 at a time: the walk stops while a batch is read, so that the files
    /// waiting never add up to the whole tree.
    var batch = 8192

    /// What the check found.
    struct Outcome: Sendable {
        /// Entries that differ from the record, in path order.
        var problems: [InstalledTreeProblem] = []
        /// Entries the record does not know, in path order (folders end with `/`).
        var unknown: [String] = []
        /// Files and symlinks in the record (as ``ExpansionResult/files`` counts them), and the files' bytes.
        var files = 0
        var bytes: UInt64 = 0
    }

    /// Checks the tree; a record that claims path order falsely is read again, sorted, and the tree walked again.
    func run() throws(AssetPackError) -> Outcome {
        let walk = try walk(record)
        guard !walk.inOrder, let sorted = OrderedRecord(tree: tree, sorting: true) else { return walk.outcome }
        return try self.walk(sorted).outcome
    }

    private func walk(_ record: OrderedRecord) throws(AssetPackError) -> Walk {
        let walk = Walk(record: record, readContents: readContents, batch: batch, contents: { files throws(AssetPackError) in
            try contentProblems(files)
        })
        try walk.visit(tree, prefix: "")
        walk.pass(before: [0xFF], reporting: true)  // no UTF-8 path has the byte FF
        try walk.readBatch()
        return walk
    }

    /// A file to read for its CRC-32: its folder's components and path, its name and its recorded CRC-32.
    fileprivate struct ToRead: Sendable {
        var folder: [String]
        var prefix: String
        var name: String
        var crc32: UInt32
    }

    /// Reads the files of `toRead` on up to ``jobs`` threads; the problems found.
    private func contentProblems(_ toRead: [ToRead]) throws(AssetPackError) -> [InstalledTreeProblem] {
        let jobs = max(1, min(jobs, toRead.count))
        let cursors = PerWorker(count: jobs) { DirectoryCursor(root: tree) }
        let found = ResultSlots<InstalledTreeProblem>(count: toRead.count)
        WorkerThreads.run(count: toRead.count, jobs: jobs) { (index, worker) throws(Never) in
            found[index] = Self.contentProblem(toRead[index], cursor: cursors[worker])
        }
        return toRead.indices.compactMap { found[$0] }
    }

    private static func contentProblem(_ entry: ToRead, cursor: DirectoryCursor) -> InstalledTreeProblem? {
        do throws(AssetPackError) {
            let file = try io(cursor.directory(entry.folder).openFile(entry.name))
            let crc = try FileChecksum.crc32(of: file)
            guard crc != entry.crc32 else { return nil }
            return InstalledTreeProblem(path: entry.prefix + entry.name, kind: .content,
                                        detail: "contents differ (CRC-32 \(hex(crc)), recorded \(hex(entry.crc32)))")
        } catch {
            return InstalledTreeProblem(path: entry.prefix + entry.name, kind: .unreadable, detail: "cannot be read: \(error.message)")
        }
    }

    /// One walk of the tree beside one reading of the record: what differs, what is unknown, and the files left
    /// to read. Of a path listed twice, the first listing counts; a link wins over a file, a file over a folder,
    /// a listed folder over one only implied by the paths below it.
    private final class Walk {
        var files: RecordList<InstallRecord.File>
        var links: RecordList<InstallRecord.Link>
        var folders: RecordList<InstallRecord.Directory>
        let readContents: Bool
        let batch: Int
        let contents: ([ToRead]) throws(AssetPackError) -> [InstalledTreeProblem]
        var problems: [InstalledTreeProblem] = []
        var unknown: [String] = []
        /// Files to read, up to ``batch``.
        var toRead: [ToRead] = []
        var fileCount = 0
        var bytes: UInt64 = 0
        /// The folders being walked (they exist), from the top down.
        private var open: [[UInt8]] = []
        /// The last path reported missing, and the last path walked but not entered (it exists; what the
        /// record has below it is missing, not it).
        private var lastMissing: [UInt8] = []
        private var notEntered: [UInt8] = []

        init(record: OrderedRecord, readContents: Bool, batch: Int,
             contents: @escaping ([ToRead]) throws(AssetPackError) -> [InstalledTreeProblem]) {
            files = record.files()
            links = record.links()
            folders = record.directories()
            self.readContents = readContents
            self.batch = batch
            self.contents = contents
        }

        /// True when every list came in path order.
        var inOrder: Bool { files.inOrder && links.inOrder && folders.inOrder }

        /// What was found; a record problem alone when a list ended in text that is not a record's.
        var outcome: Outcome {
            guard !files.isBroken && !links.isBroken && !folders.isBroken else { return InstalledTreeCheck.unreadableRecord }
            return Outcome(problems: problems.sorted { $0.path < $1.path }, unknown: unknown.sorted(), files: fileCount, bytes: bytes)
        }

        func visit(_ folder: Descriptor, prefix: String, components: [String] = []) throws(AssetPackError) {
            let names = try io(folder.names()).sorted { ($0.string ?? "").utf8.lexicographicallyPrecedes(($1.string ?? "").utf8) }
            for entry in names {
                guard let name = entry.string else {
                    unknown.append(prefix + entry.description)
                    continue
                }
                if prefix.isEmpty && name == StagingNames.recordDirectory { continue }
                let path = Array((prefix + name).utf8)
                pass(before: path, reporting: true)
                guard let status = try io(folder.status(name)) else { continue }  // removed meanwhile
                if let problem = try compare(status, path, name: name, prefix: prefix, in: folder, components: components) {
                    problems.append(problem)
                }
            }
        }

        /// Steps the lists past their entries before `key`, in path order, counting them and, when `reporting`,
        /// reporting each missing.
        func pass(before key: [UInt8], reporting: Bool) {
            while true {
                var first: [UInt8]?
                for path in [files.head?.path, links.head?.path, folders.head?.path] {
                    if let path, AssetPath.precedes(path, key), first.map({ AssetPath.precedes(path, $0) }) ?? true { first = path }
                }
                guard let path = first else { return }
                take(path)
                if reporting { missing(path) }
            }
        }

        /// Steps every list past its entries at `path`, counting them; the first link, file and folder listed there.
        @discardableResult
        private func take(_ path: [UInt8]) -> (link: InstallRecord.Link?, file: InstallRecord.File?, folder: InstallRecord.Directory?) {
            var taken: (link: InstallRecord.Link?, file: InstallRecord.File?, folder: InstallRecord.Directory?) = (nil, nil, nil)
            while let head = links.head, head.path == path {
                taken.link = taken.link ?? head.entry
                fileCount += 1
                links.advance()
            }
            while let head = files.head, head.path == path {
                taken.file = taken.file ?? head.entry
                fileCount += 1
                bytes &+= head.entry.size
                files.advance()
            }
            while let head = folders.head, head.path == path {
                taken.folder = taken.folder ?? head.entry
                folders.advance()
            }
            return taken
        }

        /// Reports `path` missing, and the folders above it that the walk did not enter and that were not
        /// reported yet (a record of an older version lists no folders: they are implied by the paths below).
        private func missing(_ path: [UInt8]) {
            guard path != lastMissing else { return }
            for index in path.indices where path[index] == UInt8(ascii: "/") {
                let folder = Array(path[..<index])
                let reported = lastMissing.starts(with: folder) && (lastMissing.count == index || lastMissing[index] == UInt8(ascii: "/"))
                guard !reported, !open.contains(folder), folder != notEntered else { continue }
                problems.append(InstalledTreeProblem(path: String(decoding: folder, as: UTF8.self), kind: .missing, detail: "missing"))
            }
            problems.append(InstalledTreeProblem(path: String(decoding: path, as: UTF8.self), kind: .missing, detail: "missing"))
            lastMissing = path
        }

        private func compare(_ status: FileStatus, _ path: [UInt8], name: String, prefix: String, in folder: Descriptor,
                             components: [String]) throws(AssetPackError) -> InstalledTreeProblem? {
            let shown = prefix + name
            let recorded = take(path)
            notEntered = path
            if let link = recorded.link {
                guard status.kind == .symlink else { return Self.typeProblem(shown, status.kind, recorded: .symlink) }
                let actual = try io(folder.readSymlink(name))
                guard actual != link.target else { return nil }
                return InstalledTreeProblem(path: shown, kind: .linkTarget,
                                            detail: "links to \(AssetPath.quoted(actual)), recorded \(AssetPath.quoted(link.target))")
            }
            if let file = recorded.file {
                guard status.kind == .file else { return Self.typeProblem(shown, status.kind, recorded: .file) }
                guard status.size == file.size else {
                    return InstalledTreeProblem(path: shown, kind: .size, detail: "size \(status.size), recorded \(file.size)")
                }
                if let problem = Self.modeProblem(shown, status.permissions, recorded: file.mode) { return problem }
                if readContents, let crc32 = file.crc32 {
                    toRead.append(ToRead(folder: components, prefix: prefix, name: name, crc32: crc32))
                    if toRead.count >= batch { try readBatch() }
                }
                return nil
            }
            guard recorded.folder != nil || files.isBelow(path) || links.isBelow(path) || folders.isBelow(path) else {
                unknown.append(shown + (status.kind == .directory ? "/" : ""))
                return nil
            }
            guard status.kind == .directory else { return Self.typeProblem(shown, status.kind, recorded: .directory) }
            let problem = recorded.folder.flatMap { Self.modeProblem(shown, status.permissions, recorded: $0.mode) }
            let end = path + [UInt8(ascii: "/"), 0xFF]  // after every path below this folder
            let depth = open.count
            do throws(AssetPackError) {
                open.append(path)
                try visit(try io(folder.directory(name)), prefix: shown + "/", components: components + [name])
                pass(before: end, reporting: true)
                open.removeLast()
            } catch {
                open.removeLast(open.count - depth)
                notEntered = path
                pass(before: end, reporting: false)
                return problem ?? InstalledTreeProblem(path: shown, kind: .unreadable, detail: "cannot be read: \(error.message)")
            }
            return problem
        }

        /// Reads the files waiting to be read.
        func readBatch() throws(AssetPackError) {
            guard !toRead.isEmpty else { return }
            problems += try contents(toRead)
            toRead.removeAll(keepingCapacity: true)
        }

        private static func typeProblem(_ path: String, _ kind: FileKind, recorded: FileKind) -> InstalledTreeProblem {
            InstalledTreeProblem(path: path, kind: .type, detail: "\(article(kind)), recorded \(article(recorded))")
        }

        private static func modeProblem(_ path: String, _ mode: UInt32, recorded: UInt32) -> InstalledTreeProblem? {
            guard mode != recorded else { return nil }
            return InstalledTreeProblem(path: path, kind: .mode, detail: "mode \(octal(mode)), recorded \(octal(recorded))")
        }

        /// `"a file"`, `"a folder"`, `"a symbolic link"`, `"a FIFO"`.
        fileprivate static func article(_ kind: FileKind) -> String { "a \(kind)" }

        /// `0644`.
        private static func octal(_ mode: UInt32) -> String {
            let digits = String(mode, radix: 8)
            return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
        }
    }

    /// The outcome when the record cannot be read: nothing could be checked.
    static let unreadableRecord = Outcome(problems: [InstalledTreeProblem(
        path: StagingNames.recordDirectory + "/" + StagingNames.recordFile, kind: .record,
        detail: "missing or unreadable; nothing could be checked")])
}

extension InstalledTreeCheck {
    /// What the folder `name` in `parent` holds, or nil when there is nothing by that name.
    struct Found {
        /// The folder, opened without following a link.
        var tree: Descriptor
        /// Its stamp, or nil when it holds no install record (a folder assetpack did not make).
        var stamp: String?
        /// What the check found; for a folder without a record, every name in it is unknown.
        var outcome: Outcome
    }

    /// Checks the destination `name` in `parent` against its record.
    /// - Throws: ``AssetPackError/Code/invalidArgument`` when `name` is not a folder (a file, a link).
    static func inspect(_ name: String, in parent: Descriptor, readContents: Bool, jobs: Int) throws(AssetPackError) -> Found? {
        guard let status = try io(parent.status(name)) else { return nil }
        guard status.kind == .directory else {
            throw AssetPackError(.invalidArgument, "the destination exists and is \(Walk.article(status.kind)), not a folder",
                                 path: parent.child(name))
        }
        let tree = try io(parent.directory(name))
        guard let stamp = InstallRecord.stamp(of: tree) else {
            let names = try io(tree.names()).map { entry in
                let isFolder = entry.string.flatMap { try? tree.status($0) }??.kind == .directory
                return entry.description + (isFolder ? "/" : "")
            }
            return Found(tree: tree, stamp: nil, outcome: Outcome(unknown: names.sorted()))
        }
        guard let record = OrderedRecord(tree: tree) else { return Found(tree: tree, stamp: stamp, outcome: unreadableRecord) }
        let check = InstalledTreeCheck(tree: tree, record: record, readContents: readContents, jobs: jobs)
        return Found(tree: tree, stamp: stamp, outcome: try check.run())
    }
}
