import AssetPack

/// An ignore list in aapt's syntax: aapt's `--ignore-assets` (or `ANDROID_AAPT_IGNORE`), and the
/// `ignoreAssetsPattern` of the Android Gradle plugin, which applies the same list to the assets it merges.
/// Names it matches are left out of the APK, silently or with a warning.
///
/// The syntax, as aapt reads it (`AaptAssets.cpp`): entries are separated by `:`; a leading `!` only
/// silences the warning; `<dir>` or `<file>` limits an entry to folders or to files; `prefix*` and
/// `*suffix` match the start or the end of a name (at least one character besides the `*`); anything
/// else is the whole name. Matching is by ASCII case-insensitive comparison of one name (not a path): a
/// folder that matches is left out with everything in it. `.` and `..` are always left out.
public struct AaptIgnoreList: Sendable, Hashable {
    /// aapt's default list, which AGP's `ignoreAssetsPattern` uses too: it drops names starting with `.`,
    /// folders starting with `_`, names ending in `~`, `*.scc`, and a few tools' files by name.
    public static let defaultPattern = "!.svn:!.git:!.ds_store:!*.scc:.*:<dir>_*:!CVS:!thumbs.db:!picasa.ini:!*~"

    /// aapt's default list.
    public static let `default` = AaptIgnoreList(defaultPattern)

    /// One entry of the list.
    public struct Entry: Sendable, Hashable {
        /// The entry as written in the list (`!*.scc`, `<dir>_*`).
        public let text: String
        private let kind: Kind
        private let match: Match
        private let value: [UInt8]

        private enum Kind: Hashable { case any, directory, file }
        private enum Match: Hashable { case whole, prefix, suffix }

        /// Reads one entry of the list.
        init(_ text: String) {
            self.text = text
            var rest = Substring(text)
            if rest.hasPrefix("!") { rest = rest.dropFirst() }
            if rest.hasPrefix("<dir>") {
                kind = .directory
                rest = rest.dropFirst(5)
            } else if rest.hasPrefix("<file>") {
                kind = .file
                rest = rest.dropFirst(6)
            } else {
                kind = .any
            }
            if rest.count > 1, rest.hasSuffix("*") {
                (match, value) = (.prefix, Self.folded(rest.dropLast()))
            } else if rest.count > 1, rest.hasPrefix("*") {
                (match, value) = (.suffix, Self.folded(rest.dropFirst()))
            } else {
                (match, value) = (.whole, Self.folded(rest))
            }
        }

        /// True when this entry leaves out the file or folder named `name`.
        public func matches(_ name: String, isDirectory: Bool) -> Bool {
            if kind == .directory && !isDirectory || kind == .file && isDirectory { return false }
            let folded = Self.folded(Substring(name))
            return switch match {
            case .whole: folded == value
            case .prefix: folded.starts(with: value)
            case .suffix: folded.count >= value.count && folded.suffix(value.count).elementsEqual(value)
            }
        }

        private static func folded(_ text: Substring) -> [UInt8] {
            text.utf8.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }
        }
    }

    /// The entries, in order.
    public let entries: [Entry]

    /// The list written as aapt takes it (`a:b:c`).
    public var pattern: String { entries.map(\.text).joined(separator: ":") }

    /// Reads `pattern`; empty entries are skipped.
    public init(_ pattern: String) {
        entries = pattern.split(separator: ":").map { Entry(String($0)) }
    }

    private init(entries: [Entry]) {
        self.entries = entries
    }

    /// True when the list leaves out the file or folder named `name`.
    public func ignores(_ name: String, isDirectory: Bool) -> Bool {
        name == "." || name == ".." || entries.contains { $0.matches(name, isDirectory: isDirectory) }
    }

    /// What the list leaves out of `paths` (`/`-separated; every component but the last is a folder, the
    /// last one is a folder when `isDirectory` says so): each entry that matches, in list order, with the
    /// first path it cuts (up to the matching name).
    public func drops(in paths: [(path: String, isDirectory: Bool)]) -> [(entry: Entry, path: String)] {
        var found: [Entry: String] = [:]
        for (path, isDirectory) in paths {
            let names = path.split(separator: "/").map(String.init)
            for (index, name) in names.enumerated() {
                let folder = index < names.count - 1 || isDirectory
                for entry in entries where found[entry] == nil && entry.matches(name, isDirectory: folder) {
                    found[entry] = names[...index].joined(separator: "/")
                }
            }
        }
        return entries.compactMap { entry in found[entry].map { (entry, $0) } }
    }

    /// This list without `removed`.
    public func removing(_ removed: [Entry]) -> AaptIgnoreList {
        AaptIgnoreList(entries: entries.filter { !removed.contains($0) })
    }
}

extension AaptIgnoreList {
    /// What the list leaves out of the bundle folder `name` that `manifest` describes, placed in an app's
    /// assets: every stored file and archive, every folder (empty ones included) and the bookkeeping files,
    /// each below `name`.
    public func drops(inBundle manifest: BundleManifest, named name: String) -> [(entry: Entry, path: String)] {
        var paths: [(path: String, isDirectory: Bool)] = [(name, true)]
        paths += [BundleManifest.path, BundleManifest.identityPath].map { (name + "/" + $0, false) }
        for entry in manifest.entries {
            switch entry.kind {
            case .directory: paths.append((name + "/" + entry.path, true))
            case .file: paths.append((name + "/" + (entry.storage?.file ?? entry.path), false))
            }
        }
        return drops(in: paths)
    }
}
