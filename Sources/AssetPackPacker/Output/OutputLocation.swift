import AssetPack
import AssetPackSystem
import AssetPackZip

/// Where a build goes, checked before anything is written, and how it gets there without ever leaving a
/// half-written result under the final name: the build is written to a temporary sibling
/// `.<name>.tmp-PID-XXXXXX` in the same folder (same file system), then renamed into place. What a build that
/// was killed left there (its process no longer exists) is removed by the next build of the same output.
///
/// Replacing an existing bundle folder: the old one is renamed aside (`.<name>.old-XXXXXX`), the new one
/// is renamed in, and the old one is deleted; should the second rename fail, the old one is put back. An
/// archive (`--archive`) replaces the old file in one atomic `rename`.
struct OutputLocation {
    /// Folder or one zip.
    enum Form {
        case folder, archive
    }

    /// The output path as given.
    let path: String
    /// Its absolute, resolved form (symlinks in existing parents resolved).
    let resolved: String
    /// Folder or archive.
    let form: Form
    /// True when something (a previous bundle, or an empty folder) is already at ``path``.
    let exists: Bool

    /// Checks `path` as the output for the source folder `source`.
    /// - Throws: `.invalidArgument` when the output is the source, inside it, or contains it, or when
    ///   something that is not a bundle (not an empty folder, for the folder form) is in the way.
    init(_ path: String, form: Form, source: String) throws(AssetPackError) {
        let name = FileSystem.lastComponent(path)
        guard !path.isEmpty, name != ".", name != "..", name != "/" else {
            throw AssetPackError(.invalidArgument, "cannot write a bundle here; name a folder or file to create or replace",
                                 path: path)
        }
        let resolvedSource = try Self.resolve(source)
        self.path = path
        self.form = form
        self.resolved = try Self.resolve(path)
        if Self.isInside(resolved, resolvedSource) {
            throw AssetPackError(.invalidArgument, "output is inside the source folder \(source); choose a path outside it", path: path)
        }
        if Self.isInside(resolvedSource, resolved) {
            throw AssetPackError(.invalidArgument, "output contains the source folder \(source); choose another path", path: path)
        }
        exists = try Self.checkExisting(path, form: form)
    }

    /// True when `inner` is `outer` or lies below it (both absolute and resolved).
    static func isInside(_ inner: String, _ outer: String) -> Bool {
        inner == outer || inner.hasPrefix(outer.hasSuffix("/") ? outer : outer + "/")
    }

    /// The absolute path of `path` with the symlinks of its longest existing ancestor resolved.
    static func resolve(_ path: String) throws(AssetPackError) -> String {
        if let real = FileSystem.canonicalPath(path) { return real }
        let absolute = path.hasPrefix("/") ? path : try io(FileSystem.currentDirectory()) + "/" + path
        var missing: [String] = []
        var existing = absolute
        while FileSystem.canonicalPath(existing) == nil && existing != "/" {
            missing.insert(FileSystem.lastComponent(existing), at: 0)
            existing = FileSystem.parentPath(existing)
        }
        var parts = (FileSystem.canonicalPath(existing) ?? "/").split(separator: "/").map(String.init)
        for part in missing where part != "." {
            if part == ".." { _ = parts.popLast() } else { parts.append(part) }
        }
        return "/" + parts.joined(separator: "/")
    }

    /// Whether something is at `path`; throws when it is in the way.
    private static func checkExisting(_ path: String, form: Form) throws(AssetPackError) -> Bool {
        guard let info = try io(FileSystem.status(path)) else { return false }
        var replaceable = false
        switch (form, info.kind) {
        case (.folder, .directory):
            replaceable = try isBundleFolder(path)
            if !replaceable { replaceable = try io(FileSystem.names(in: path)).isEmpty }
        case (.archive, .file):
            replaceable = isBundleArchive(path)
        default:
            break
        }
        guard replaceable else {
            let what = form == .folder ? "folder" : "zip"
            throw AssetPackError(.invalidArgument,
                                 "exists and is not an assetpack bundle \(what) (no \(BundleManifest.path)); refusing to replace it",
                                 path: path)
        }
        return true
    }

    /// True when the folder at `path` holds a manifest (`assetpack-meta/manifest.json`).
    static func isBundleFolder(_ path: String) throws(AssetPackError) -> Bool {
        try io(FileSystem.status(path + "/" + BundleManifest.path))?.kind == .file
    }

    /// True when the file at `path` is a zip with a manifest entry.
    static func isBundleArchive(_ path: String) -> Bool {
        guard let archive = try? ZipArchive(path: path) else { return false }
        return archive.entry(named: BundleManifest.path) != nil
    }

    // MARK: - Staging and committing

    /// The folder that holds the output.
    var parent: String { FileSystem.parentPath(path) }

    /// The prefix of temporary siblings: `PARENT/.<name>.`.
    private var siblingPrefix: String { parent + "/." + FileSystem.lastComponent(path) + "." }

    /// The prefix of this process's temporary siblings: `PARENT/.<name>.tmp-PID-`.
    private var stagingPrefix: String { siblingPrefix + "tmp-\(CurrentProcess.id)-" }

    /// Creates the output's parent folders, then a temporary sibling (a folder, or a file for the archive
    /// form) to build into.
    func stage() throws(AssetPackError) -> String {
        try prepareParent()
        guard form == .archive else { return try io(FileSystem.makeTemporaryDirectory(prefix: stagingPrefix)) }
        let (staged, descriptor) = try io(FileSystem.makeTemporaryFile(prefix: stagingPrefix))
        try io(descriptor.closeAfterWriting(path: staged))
        return staged
    }

    /// Creates the output's parent folders and removes the temporary siblings (`.<name>.tmp-PID-…`,
    /// `.<name>.old-PID-…`) of earlier builds of this output whose process no longer exists (killed mid-build).
    private func prepareParent() throws(AssetPackError) {
        _ = try io(FileSystem.makeDirectories(parent))
        let prefix = "." + FileSystem.lastComponent(path) + "."
        for name in (try? FileSystem.names(in: parent))?.compactMap(\.string) ?? [] where name.hasPrefix(prefix) {
            let rest = name.dropFirst(prefix.count)
            guard rest.hasPrefix("tmp-") || rest.hasPrefix("old-"), let dash = rest.dropFirst(4).firstIndex(of: "-"),
                  let pid = Int32(rest[rest.index(rest.startIndex, offsetBy: 4)..<dash]), !CurrentProcess.exists(pid) else { continue }
            try? FileSystem.removeTree(parent + "/" + name)
        }
    }

    /// Moves the finished `staged` build to ``path``, replacing what was there.
    func commit(_ staged: String) throws(AssetPackError) {
        try io(FileSystem.setPermissions(staged, form == .folder ? 0o755 : 0o644))
        guard form == .folder, try io(FileSystem.status(path)) != nil else {
            try io(FileSystem.rename(staged, to: path))
            return
        }
        // A non-empty folder cannot be replaced by rename(2): move the old one aside first. mkdtemp makes
        // an empty folder with a unique name, which rename(2) may replace.
        let aside = try io(FileSystem.makeTemporaryDirectory(prefix: siblingPrefix + "old-\(CurrentProcess.id)-"))
        try io(FileSystem.rename(path, to: aside))
        do {
            try io(FileSystem.rename(staged, to: path))
        } catch {
            try? FileSystem.rename(aside, to: path)
            throw error
        }
        try? FileSystem.removeTree(aside)
    }

    /// Removes a staged build after a failure.
    func discard(_ staged: String) {
        try? FileSystem.removeTree(staged)
    }
}
