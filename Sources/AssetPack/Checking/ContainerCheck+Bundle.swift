import AssetPackZip

/// The checks of one bundle in a container (see ``ContainerCheck``), in manifest order: each plain file,
/// then each packing archive with the files packed in it.
struct BundleCheck {
    typealias Problem = ContainerCheck.Problem

    let archive: ZipArchive
    /// The bundle's folder in the container ("" for all of it).
    let root: String
    let options: ContainerCheck.Options
    let layout: ContainerCheck.Layout
    private var problems: [Problem] = []
    private var alignedEntries = 0

    init(archive: ZipArchive, root: String, options: ContainerCheck.Options) {
        self.archive = archive
        self.root = root
        self.options = options
        self.layout = .of(root, in: archive)
    }

    /// Runs every check.
    func run() -> ContainerCheck.Bundle {
        var check = self
        return check.checkAll()
    }

    private mutating func checkAll() -> ContainerCheck.Bundle {
        let source = ZipAssetSource(archive: archive, root: root)
        let located: BundleManifest.Located
        do {
            guard let found = try BundleManifest.locate(in: source) else { return unreadable("the manifest cannot be opened") }
            located = found
        } catch {
            return unreadable(error.message)
        }
        var packed: [AssetPath: [(entry: BundleManifest.Entry, name: String)]] = [:]
        let files = located.manifest.entries.filter { $0.kind == .file }
        for entry in files {
            do {
                switch try entry.location(origin: located.path) {
                case .plain(let stored): checkPlain(entry, at: stored)
                case .packed(let archive, let name): packed[archive, default: []].append((entry, name))
                }
            } catch {
                problems.append(Problem(kind: .manifest, path: entryName(located.path), message: error.message))
            }
        }
        let archives = packed.keys.sorted()
        for path in archives { checkArchive(path, holding: packed[path] ?? [], in: source) }
        return ContainerCheck.Bundle(root: root, layout: layout, manifest: entryName(located.path), files: files.count,
                                     archives: archives.map { entryName($0.string) }, alignedEntries: alignedEntries, problems: problems)
    }

    /// A bundle whose manifest cannot be read: that is its one problem.
    private func unreadable(_ message: String) -> ContainerCheck.Bundle {
        let manifest = entryName(BundleManifest.path)
        return ContainerCheck.Bundle(root: root, layout: layout, manifest: manifest, files: 0, archives: [],
                                     alignedEntries: 0, problems: [Problem(kind: .manifest, path: manifest, message: message)])
    }

    /// A plain file: the container's entry has the manifest's size and CRC-32, and is aligned when stored.
    private mutating func checkPlain(_ file: BundleManifest.Entry, at stored: AssetPath) {
        let name = entryName(stored.string)
        guard let member = archive.entry(named: name), member.kind == .file else {
            return report(.missing, name, "is listed in the manifest but missing from the container")
        }
        if let problem = Self.difference(member, from: file, what: "") { report(.mismatch, name, problem) }
        checkAlignment(member)
    }

    /// A packing archive: stored and aligned in the container, and holding every entry the manifest names
    /// for its files, with their sizes and CRC-32s (and the compressed size a block index was cut for).
    private mutating func checkArchive(_ path: AssetPath, holding files: [(entry: BundleManifest.Entry, name: String)],
                                       in source: ZipAssetSource) {
        let name = entryName(path.string)
        guard let member = archive.entry(named: name), member.kind == .file else {
            return report(.missing, name, "is a packed archive the manifest lists, missing from the container")
        }
        if member.method == .stored {
            checkAlignment(member)
        } else if layout.checksStorage {
            let how = member.method == .deflate ? "deflated" : "compressed (\(member.method))"
            report(.recompressed, name, "is \(how) by the container; a packed archive must be stored to be read in place "
                   + "(Gradle: noCompress += \"zip\"; aapt: -0 zip)")
        }
        let inner: ZipArchive
        do {
            inner = try ArchiveHandle(in: SourceAccess(source), at: path, limits: options.limits).archive()
        } catch {
            return report(.mismatch, name, "cannot be read as a zip: \(error.message)")
        }
        for (file, entryName) in files {
            guard let entry = inner.entry(named: entryName), entry.kind == .file else {
                report(.missing, name, "has no entry \(AssetPath.quoted(entryName)), which the manifest lists for \"\(file.path)\"")
                continue
            }
            if let problem = Self.difference(entry, from: file, what: "entry \(AssetPath.quoted(entryName)) ") {
                report(.mismatch, name, problem)
            } else if file.storage?.blocks != nil, let expected = file.storage?.compressedSize, entry.compressedSize != expected {
                report(.mismatch, name, "entry \(AssetPath.quoted(entryName)) has \(entry.compressedSize) compressed bytes; the "
                       + "manifest's block index was cut for \(expected) (the archive was rebuilt)")
            }
        }
    }

    /// How `member` differs from the size and CRC-32 `file` records, or nil.
    private static func difference(_ member: ZipEntry, from file: BundleManifest.Entry, what: String) -> String? {
        if let size = file.size, member.uncompressedSize != size {
            return "\(what)is \(member.uncompressedSize) bytes, the manifest records \(size)"
        }
        if let crc = file.crc32, member.crc32 != crc {
            return "\(what)has CRC-32 \(hex(member.crc32)), the manifest records \(hex(crc))"
        }
        return nil
    }

    /// A stored member with data must start at a multiple of the alignment.
    private mutating func checkAlignment(_ member: ZipEntry) {
        guard layout.checksAlignment, member.method == .stored, member.compressedSize > 0 else { return }
        let start: UInt64
        do {
            start = try archive.dataRange(of: member).lowerBound
        } catch {
            return report(.mismatch, member.name, "cannot be located in the container: \(AssetPackError(error).message)")
        }
        alignedEntries += 1
        if start % options.alignment != 0 {
            report(.misaligned, member.name, "stored data starts at offset \(start), not a multiple of \(options.alignment), "
                   + "so it cannot be mapped in place (zipalign \(options.alignment))")
        }
    }

    private mutating func report(_ kind: Problem.Kind, _ path: String, _ message: String) {
        problems.append(Problem(kind: kind, path: path, message: message))
    }

    /// The container's entry name of bundle path `path`.
    private func entryName(_ path: String) -> String { root.isEmpty ? path : root + "/" + path }
}
