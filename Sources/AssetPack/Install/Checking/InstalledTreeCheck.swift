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
        /// The record's list (`.assetpack/installed.json`) is missing or unreadable: nothing could be
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
/// not what it holds); the record folder `.assetpack/` itself is left out.
///
/// Without contents (``InstallStatus``) the check costs one `fstatat` per entry; with them every file is
/// read once more, on up to `jobs` threads, a batch at a time. The record is looked up in a
/// ``RecordedEntryIndex`` (32 bytes a path), so the memory of a check grows with the problems it finds,
/// not with the tree: a tree of 1,000,000 files is checked in a few tens of MiB.
struct InstalledTreeCheck {
    /// The installed tree.
    let tree: Descriptor
    /// Its record.
    let record: RecordedEntryIndex
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

    func run() throws(AssetPackError) -> Outcome {
        let walk = Walk(record: record, readContents: readContents, batch: batch, contents: { files throws(AssetPackError) in
            try contentProblems(files)
        })
        try walk.visit(tree, prefix: "")
        try walk.readBatch()
        var outcome = Outcome(files: record.summary.files, bytes: record.summary.bytes)
        outcome.problems = walk.problems + (try walk.missingAndLinks(tree))
        outcome.problems.sort { $0.path < $1.path }
        outcome.unknown = walk.unknown.sorted()
        return outcome
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

    /// One walk of the tree: what differs, what is unknown, and the files left to read.
    private final class Walk {
        let record: RecordedEntryIndex
        let readContents: Bool
        let batch: Int
        let contents: ([ToRead]) throws(AssetPackError) -> [InstalledTreeProblem]
        /// Folders that could not be opened: what the record has below them is not reported missing.
        var unopened: [String] = []
        var problems: [InstalledTreeProblem] = []
        var unknown: [String] = []
        /// Links whose target differs, by slot: their path and target (the recorded one is read later).
        var differingLinks: [Int: String] = [:]
        /// Files to read, up to ``batch``.
        var toRead: [ToRead] = []
        /// The path of the entry being looked up, as bytes.
        private var pathBytes: [UInt8] = []

        init(record: RecordedEntryIndex, readContents: Bool, batch: Int,
             contents: @escaping ([ToRead]) throws(AssetPackError) -> [InstalledTreeProblem]) {
            self.record = record
            self.readContents = readContents
            self.batch = batch
            self.contents = contents
        }

        func visit(_ folder: Descriptor, prefix: String, components: [String] = []) throws(AssetPackError) {
            for entry in try io(folder.names()) {
                guard let name = entry.string else {
                    unknown.append(prefix + entry.description)
                    continue
                }
                if prefix.isEmpty && name == StagingNames.recordDirectory { continue }
                guard let status = try io(folder.status(name)) else { continue }  // removed meanwhile
                guard let position = find(prefix, name) else {
                    unknown.append(prefix + name + (status.kind == .directory ? "/" : ""))
                    continue
                }
                record.markSeen(position)
                if let problem = try compare(status, record[position], position, name: name, prefix: prefix, in: folder,
                                             components: components) {
                    problems.append(problem)
                }
            }
        }

        private func find(_ prefix: String, _ name: String) -> Int? {
            pathBytes.removeAll(keepingCapacity: true)
            pathBytes.append(contentsOf: prefix.utf8)
            pathBytes.append(contentsOf: name.utf8)
            return pathBytes.withUnsafeBytes { record.find($0) }
        }

        private func compare(_ status: FileStatus, _ wanted: RecordedEntryIndex.Slot, _ position: Int, name: String,
                             prefix: String, in folder: Descriptor, components: [String]) throws(AssetPackError) -> InstalledTreeProblem? {
            switch wanted.kind {
            case .directory, .impliedDirectory:
                let path = prefix + name
                guard status.kind == .directory else { return Self.typeProblem(path, status.kind, recorded: .directory) }
                let problem = wanted.kind == .directory ? Self.modeProblem(path, status.permissions, recorded: wanted.mode) : nil
                do throws(AssetPackError) {
                    try visit(try io(folder.directory(name)), prefix: path + "/", components: components + [name])
                } catch {
                    unopened.append(path + "/")
                    return problem ?? InstalledTreeProblem(path: path, kind: .unreadable, detail: "cannot be read: \(error.message)")
                }
                return problem
            case .file:
                guard status.kind == .file else { return Self.typeProblem(prefix + name, status.kind, recorded: .file) }
                guard status.size == wanted.value else {
                    return InstalledTreeProblem(path: prefix + name, kind: .size, detail: "size \(status.size), recorded \(wanted.value)")
                }
                if let problem = Self.modeProblem(prefix + name, status.permissions, recorded: wanted.mode) { return problem }
                if readContents && wanted.hasCRC {
                    toRead.append(ToRead(folder: components, prefix: prefix, name: name, crc32: wanted.crc32))
                    if toRead.count >= batch { try readBatch() }
                }
                return nil
            case .link:
                guard status.kind == .symlink else { return Self.typeProblem(prefix + name, status.kind, recorded: .symlink) }
                let actual = try io(folder.readSymlink(name))
                guard RecordedEntryIndex.targetHash(actual) != wanted.value else { return nil }
                differingLinks[position] = actual
                return nil
            }
        }

        /// Reads the files waiting to be read.
        func readBatch() throws(AssetPackError) {
            guard !toRead.isEmpty else { return }
            problems += try contents(toRead)
            toRead.removeAll(keepingCapacity: true)
        }

        /// The recorded entries not seen (those below a folder that could not be opened left out), and the
        /// links whose target differs, from a second reading of the record when there are any.
        func missingAndLinks(_ tree: Descriptor) throws(AssetPackError) -> [InstalledTreeProblem] {
            guard !record.allSeen || !differingLinks.isEmpty else { return [] }
            var found: [InstalledTreeProblem] = []
            let read = record.readAgain(tree) { (path, slot, position, target) in
                if !slot.seen {
                    guard !unopened.contains(where: { path.hasPrefix($0) }) else { return }
                    found.append(InstalledTreeProblem(path: path, kind: .missing, detail: "missing"))
                } else if let target, let actual = differingLinks.removeValue(forKey: position) {
                    found.append(InstalledTreeProblem(path: path, kind: .linkTarget,
                                                      detail: "links to \(AssetPath.quoted(actual)), recorded \(AssetPath.quoted(target))"))
                }
            }
            guard read else {
                throw AssetPackError(.io, "the install record changed while the tree was checked",
                                     path: tree.child(StagingNames.recordDirectory + "/" + StagingNames.recordFile))
            }
            return found
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
        guard let record = RecordedEntryIndex.of(tree) else {
            let path = StagingNames.recordDirectory + "/" + StagingNames.recordFile
            let problem = InstalledTreeProblem(path: path, kind: .record, detail: "missing or unreadable; nothing could be checked")
            return Found(tree: tree, stamp: stamp, outcome: Outcome(problems: [problem]))
        }
        let check = InstalledTreeCheck(tree: tree, record: record, readContents: readContents, jobs: jobs)
        return Found(tree: tree, stamp: stamp, outcome: try check.run())
    }
}
