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
/// read once more, on up to `jobs` threads.
struct InstalledTreeCheck {
    /// The installed tree.
    let tree: Descriptor
    /// Its record.
    let record: InstallRecord
    /// Read every file for its CRC-32 (the deep check of a repair), or trust size and mode.
    let readContents: Bool
    /// Threads reading contents.
    let jobs: Int

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
        let walk = Walk(expected: Self.expectations(of: record), readContents: readContents)
        try walk.visit(tree, prefix: "")
        var outcome = Outcome(files: record.files.count + (record.links?.count ?? 0),
                              bytes: record.files.reduce(0) { $0 + $1.size })
        outcome.problems = walk.problems + walk.missing() + (try contentProblems(walk.toRead))
        outcome.problems.sort { $0.path < $1.path }
        outcome.unknown = walk.unknown.sorted()
        return outcome
    }

    /// What the record expects at each path: its folders (with permissions when it lists them, else the
    /// folders its files and links imply), files and links.
    private static func expectations(of record: InstallRecord) -> [String: Expected] {
        var expected: [String: Expected] = [:]
        for directory in record.directories ?? [] { expected[directory.path] = .directory(mode: directory.mode) }
        for file in record.files { expected[file.path] = .file(file) }
        for link in record.links ?? [] { expected[link.path] = .link(target: link.target) }
        for path in Array(expected.keys) {
            var parent = Substring(path)
            while let slash = parent.lastIndex(of: "/") {
                parent = parent[..<slash]
                if expected[String(parent)] == nil { expected[String(parent)] = .directory(mode: nil) }
            }
        }
        return expected
    }

    /// What the record expects at a path.
    fileprivate enum Expected {
        case directory(mode: UInt32?)
        case file(InstallRecord.File)
        case link(target: String)
    }

    /// A file to read for its CRC-32: its folder's components, its name and its record.
    fileprivate struct ToRead: Sendable {
        var folder: [String]
        var name: String
        var file: InstallRecord.File
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
        guard let recorded = entry.file.crc32 else { return nil }
        do throws(AssetPackError) {
            let file = try io(cursor.directory(entry.folder).openFile(entry.name))
            let crc = try FileChecksum.crc32(of: file)
            guard crc != recorded else { return nil }
            return InstalledTreeProblem(path: entry.file.path, kind: .content,
                                        detail: "contents differ (CRC-32 \(hex(crc)), recorded \(hex(recorded)))")
        } catch {
            return InstalledTreeProblem(path: entry.file.path, kind: .unreadable, detail: "cannot be read: \(error.message)")
        }
    }

    /// One walk of the tree: what it saw, what differs, what is unknown, and the files left to read.
    private final class Walk {
        let expected: [String: Expected]
        let readContents: Bool
        var seen: Set<String> = []
        /// Folders that could not be opened: what the record has below them is not reported missing.
        var unopened: [String] = []
        var problems: [InstalledTreeProblem] = []
        var unknown: [String] = []
        var toRead: [ToRead] = []

        init(expected: [String: Expected], readContents: Bool) {
            self.expected = expected
            self.readContents = readContents
        }

        func visit(_ folder: Descriptor, prefix: String, components: [String] = []) throws(AssetPackError) {
            for entry in try io(folder.names()) {
                guard let name = entry.string else {
                    unknown.append(prefix + entry.description)
                    continue
                }
                if prefix.isEmpty && name == StagingNames.recordDirectory { continue }
                guard let status = try io(folder.status(name)) else { continue }  // removed meanwhile
                let path = prefix + name
                guard let wanted = expected[path] else {
                    unknown.append(path + (status.kind == .directory ? "/" : ""))
                    continue
                }
                seen.insert(path)
                if let problem = try compare(status, wanted, name: name, path: path, in: folder, components: components) {
                    problems.append(problem)
                }
            }
        }

        private func compare(_ status: FileStatus, _ wanted: Expected, name: String, path: String, in folder: Descriptor,
                             components: [String]) throws(AssetPackError) -> InstalledTreeProblem? {
            switch wanted {
            case .directory(let mode):
                guard status.kind == .directory else { return Self.typeProblem(path, status.kind, recorded: .directory) }
                let problem = mode.flatMap { Self.modeProblem(path, status.permissions, recorded: $0) }
                do throws(AssetPackError) {
                    try visit(try io(folder.directory(name)), prefix: path + "/", components: components + [name])
                } catch {
                    unopened.append(path + "/")
                    return problem ?? InstalledTreeProblem(path: path, kind: .unreadable, detail: "cannot be read: \(error.message)")
                }
                return problem
            case .file(let file):
                guard status.kind == .file else { return Self.typeProblem(path, status.kind, recorded: .file) }
                guard status.size == file.size else {
                    return InstalledTreeProblem(path: path, kind: .size, detail: "size \(status.size), recorded \(file.size)")
                }
                if let problem = Self.modeProblem(path, status.permissions, recorded: file.mode) { return problem }
                if readContents { toRead.append(ToRead(folder: components, name: name, file: file)) }
                return nil
            case .link(let target):
                guard status.kind == .symlink else { return Self.typeProblem(path, status.kind, recorded: .symlink) }
                let actual = try io(folder.readSymlink(name))
                guard actual != target else { return nil }
                return InstalledTreeProblem(path: path, kind: .linkTarget,
                                            detail: "links to \(AssetPath.quoted(actual)), recorded \(AssetPath.quoted(target))")
            }
        }

        /// The recorded entries not seen (those below a folder that could not be opened left out).
        func missing() -> [InstalledTreeProblem] {
            expected.keys.filter { path in !seen.contains(path) && !unopened.contains { path.hasPrefix($0) } }
                .map { InstalledTreeProblem(path: $0, kind: .missing, detail: "missing") }
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
        guard let record = InstallRecord.read(of: tree) else {
            let path = StagingNames.recordDirectory + "/" + StagingNames.recordFile
            let problem = InstalledTreeProblem(path: path, kind: .record, detail: "missing or unreadable; nothing could be checked")
            return Found(tree: tree, stamp: stamp, outcome: Outcome(problems: [problem]))
        }
        let check = InstalledTreeCheck(tree: tree, record: record, readContents: readContents, jobs: jobs)
        return Found(tree: tree, stamp: stamp, outcome: try check.run())
    }
}
