import AssetPack

/// The files and folders of a source tree that a build leaves out (`assetpack build --exclude GLOB`),
/// read the way `.gitignore` reads its lines:
///
/// - A pattern without a `/` is matched against each name at any depth: `*.psd`, `.DS_Store`, `build`.
/// - A pattern with a `/` before its end is matched against the whole path from the source folder:
///   `docs/*.md`, `/README.md` (a leading `/` only anchors the pattern). A part that is exactly `**`
///   stands for any number of folders, none included: `raw/**/*.tmp`, `**/cache/*.bin`.
/// - A trailing `/` matches folders only: `cache/`.
/// - An excluded folder is left out with everything below it.
///
/// Each part is a `Glob`: `*`, `?`, `[a-z]`, `[!a-z]`, `\` escapes; case-sensitive.
///
/// ``defaults`` leaves out what editors, file managers and version control put into asset folders:
/// ``defaultPatterns``.
public struct ExcludePatterns: Sendable, Hashable {
    /// Left out unless a build turns the defaults off: Finder's `.DS_Store` and `._*` (resource forks on
    /// volumes without them), Windows Explorer's `Thumbs.db` and `desktop.ini`, the folders (or, for a
    /// submodule, file) of Git, Subversion and Mercurial, and editor backups and locks: `*~` (Emacs, gedit,
    /// nano), `*.swp` and `*.swo` (Vim), `.#*` (Emacs).
    public static let defaultPatterns = [".DS_Store", "._*", "Thumbs.db", "desktop.ini", ".git", ".svn", ".hg",
                                         "*~", "*.swp", "*.swo", ".#*"]

    /// Leaves nothing out.
    public static let none = ExcludePatterns(rules: [], patterns: [])

    /// Leaves out ``defaultPatterns``.
    public static let defaults = ExcludePatterns(rules: defaultPatterns.map { try! Rule($0) }, patterns: defaultPatterns)

    /// The patterns in force, the defaults first when they are included.
    public let patterns: [String]
    private let rules: [Rule]

    private init(rules: [Rule], patterns: [String]) {
        self.rules = rules
        self.patterns = patterns
    }

    /// Leaves out what `patterns` match, and ``defaultPatterns`` too when `includingDefaults`.
    /// - Throws: `.invalidArgument` naming the pattern when one is empty, is only `/`, holds an empty
    ///   part (`a//b`), has a `[` without its `]`, or ends with a lone `\`.
    public init(_ patterns: [String], includingDefaults: Bool = false) throws(AssetPackError) {
        var rules = includingDefaults ? Self.defaults.rules : []
        for pattern in patterns { rules.append(try Rule(pattern)) }
        self.init(rules: rules, patterns: (includingDefaults ? Self.defaultPatterns : []) + patterns)
    }

    /// True when the file or folder at `path` (below the source folder) is left out.
    public func excludes(_ path: AssetPath, isDirectory: Bool) -> Bool {
        guard !rules.isEmpty, !path.isRoot else { return false }
        let name = Array(path.name.unicodeScalars)
        return rules.contains { $0.matches(path, name: name, isDirectory: isDirectory) }
    }

    /// One compiled pattern.
    struct Rule: Sendable, Hashable {
        /// One `/`-separated part of an anchored pattern.
        enum Part: Sendable, Hashable {
            case glob(Glob)
            /// `**`: any number of folders.
            case anyFolders
        }

        /// The parts; one glob for a pattern matched against names.
        let parts: [Part]
        /// Matched against the whole path rather than the name.
        let anchored: Bool
        /// Matches folders only (the pattern ended with `/`).
        let foldersOnly: Bool

        init(_ pattern: String) throws(AssetPackError) {
            var body = Substring(pattern)
            foldersOnly = body.hasSuffix("/")
            if foldersOnly { body = body.dropLast() }
            anchored = body.contains("/")
            if body.hasPrefix("/") { body = body.dropFirst() }
            guard !body.isEmpty else { throw Glob.invalid(pattern, "names nothing") }
            let pieces = body.split(separator: "/", omittingEmptySubsequences: false)
            if pieces.contains(where: \.isEmpty) { throw Glob.invalid(pattern, "has an empty part (//)") }
            var parts: [Part] = []
            for piece in pieces {
                parts.append(anchored && piece == "**" ? .anyFolders : .glob(try Glob(piece)))
            }
            self.parts = parts
        }

        func matches(_ path: AssetPath, name: [Unicode.Scalar], isDirectory: Bool) -> Bool {
            if foldersOnly && !isDirectory { return false }
            guard anchored else {
                guard case .glob(let glob) = parts[0] else { return false }
                return glob.matches(name)
            }
            return Self.matches(parts[...], path.components[...])
        }

        /// True when `parts` match all of `components`; `**` tries every number of folders.
        private static func matches(_ parts: ArraySlice<Part>, _ components: ArraySlice<String>) -> Bool {
            guard let part = parts.first else { return components.isEmpty }
            switch part {
            case .anyFolders:
                var rest = components
                while true {
                    if matches(parts.dropFirst(), rest) { return true }
                    guard !rest.isEmpty else { return false }
                    rest = rest.dropFirst()
                }
            case .glob(let glob):
                guard let component = components.first, glob.matches(Array(component.unicodeScalars)) else { return false }
                return matches(parts.dropFirst(), components.dropFirst())
            }
        }
    }
}
