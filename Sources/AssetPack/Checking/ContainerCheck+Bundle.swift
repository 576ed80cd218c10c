import AssetPackZip

/// The checks of one bundle in a container (see ``ContainerCheck``), made as its manifest is read, a run of
/// entries at a time (``ManifestEntrySink``): each plain file, and each packed file in its packing archive,
/// which is checked itself when the first of its files comes. Neither the manifest's entries nor the
/// packing archives are ever all in hand, so a bundle of a million files is checked in a few megabytes.
final class BundleCheck: ManifestEntrySink {
    typealias Problem = ContainerCheck.Problem

    let archive: ZipArchive
    /// The bundle's folder in the container ("" for all of it).
    let root: String
    let options: ContainerCheck.Options
    let layout: ContainerCheck.Layout
    private let source: ZipAssetSource
    private var problems: [Problem] = []
    private var alignedEntries = 0
    private var files = 0
    /// The packing archives met, and the one whose files are being checked (nil when it is missing or unreadable).
    private var archives: Set<AssetPath> = []
    private var current: (path: AssetPath, inner: ZipArchive?)?

    init(archive: ZipArchive, root: String, options: ContainerCheck.Options) {
        self.archive = archive
        self.root = root
        self.options = options
        self.layout = .of(root, in: archive)
        self.source = ZipAssetSource(archive: archive, root: root)
    }

    /// Runs every check.
    func run() -> ContainerCheck.Bundle {
        let located: BundleManifest.Located
        do {
            guard let found = try BundleManifest.locate(in: source, into: self) else { return unreadable("the manifest cannot be opened") }
            located = found
        } catch {
            return unreadable(error.message)
        }
        return ContainerCheck.Bundle(root: root, layout: layout, manifest: entryName(located.path), files: files,
                                     archives: archives.sorted().map { entryName($0.string) }, alignedEntries: alignedEntries,
                                     problems: problems)
    }

    func take(_ entries: [BundleManifest.Entry], expectedCount: Int?) {
        for entry in entries where entry.kind == .file {
            files += 1
            do {
                switch try entry.location(origin: BundleManifest.path) {
                case .plain(let stored): checkPlain(entry, at: stored)
                case .packed(let archive, let name): checkPacked(entry, named: name, in: archive)
                }
            } catch {
                problems.append(Problem(kind: .manifest, path: entryName(BundleManifest.path), message: error.message))
            }
        }
    }

    /// A bundle whose manifest cannot be read: that is its one problem.
    private func unreadable(_ message: String) -> ContainerCheck.Bundle {
        let manifest = entryName(BundleManifest.path)
        return ContainerCheck.Bundle(root: root, layout: layout, manifest: manifest, files: 0, archives: [],
                                     alignedEntries: 0, problems: [Problem(kind: .manifest, path: manifest, message: message)])
    }

    /// A plain file: the container's entry has the manifest's size and CRC-32, and is aligned when stored.
    private func checkPlain(_ file: BundleManifest.Entry, at stored: AssetPath) {
        let name = entryName(stored.string)
        guard let member = archive.entry(named: name), member.kind == .file else {
            return report(.missing, name, "is listed in the manifest but missing from the container")
        }
        if let problem = Self.difference(member, from: file, what: "") { report(.mismatch, name, problem) }
        checkAlignment(member)
    }

    /// A packed file: its packing archive (checked when it is first met: ``open(_:)``) has the entry the
    /// manifest names, with its size and CRC-32 (and the compressed size a block index was cut for).
    private func checkPacked(_ file: BundleManifest.Entry, named entryName: String, in path: AssetPath) {
        if current?.path != path { current = (path, open(path)) }
        guard let inner = current?.inner else { return }
        let name = self.entryName(path.string)
        guard let entry = inner.entry(named: entryName), entry.kind == .file else {
            return report(.missing, name, "has no entry \(AssetPath.quoted(entryName)), which the manifest lists for \"\(file.path)\"")
        }
        if let problem = Self.difference(entry, from: file, what: "entry \(AssetPath.quoted(entryName)) ") {
            report(.mismatch, name, problem)
        } else if file.storage?.blocks != nil, let expected = file.storage?.compressedSize, entry.compressedSize != expected {
            report(.mismatch, name, "entry \(AssetPath.quoted(entryName)) has \(entry.compressedSize) compressed bytes; the "
                   + "manifest's block index was cut for \(expected) (the archive was rebuilt)")
        }
    }

    /// The packing archive at `path`, opened; the first time it is met, checked to be stored and aligned in
    /// the container. Nil, with the problem reported, when it is missing or cannot be read as a zip.
    private func open(_ path: AssetPath) -> ZipArchive? {
        let name = entryName(path.string)
        let first = archives.insert(path).inserted
        guard let member = archive.entry(named: name), member.kind == .file else {
            if first { report(.missing, name, "is a packed archive the manifest lists, missing from the container") }
            return nil
        }
        if first && member.method == .stored {
            checkAlignment(member)
        } else if first && layout.checksStorage {
            let how = member.method == .deflate ? "deflated" : "compressed (\(member.method))"
            report(.recompressed, name, "is \(how) by the container; a packed archive must be stored to be read in place "
                   + "(Gradle: noCompress += \"zip\"; aapt: -0 zip)")
        }
        do {
            return try ArchiveHandle(in: SourceAccess(source), at: path, limits: options.limits).archive()
        } catch {
            if first { report(.mismatch, name, "cannot be read as a zip: \(error.message)") }
            return nil
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
    private func checkAlignment(_ member: ZipEntry) {
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

    private func report(_ kind: Problem.Kind, _ path: String, _ message: String) {
        problems.append(Problem(kind: kind, path: path, message: message))
    }

    /// The container's entry name of bundle path `path`.
    private func entryName(_ path: String) -> String { root.isEmpty ? path : root + "/" + path }
}
