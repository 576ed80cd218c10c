import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A library (or header) installed on the system that a test needs, the sibling of ``ExternalTool`` for
/// what is not a command: e.g. Android 10's `libandroidfw`, which the NDK source's host tests run on.
///
/// The same policy: when it is missing the test is **skipped with a visible reason** naming the file and
/// the Debian package, unless `ASSETPACK_REQUIRE_TOOLS=1` (set by `.ci/run`), which makes it a failure.
public struct ExternalLibrary: Sendable, CustomStringConvertible {
    /// What it is, for messages: a file name such as `libandroidfw.so`, without spaces.
    public let name: String
    /// The Debian package that provides it.
    public let debianPackage: String
    /// Where it may be: paths, possibly with `*` patterns (`/usr/lib/*/android/libandroidfw.so`); any one
    /// existing is enough.
    public let candidates: [String]

    /// Describes a library by a name, its Debian package, and the paths where it may be found.
    public init(_ name: String, package: String, at candidates: String...) {
        self.name = name
        self.debianPackage = package
        self.candidates = candidates
    }

    /// The first existing path among ``candidates``, or nil when the library is missing.
    public var location: String? {
        candidates.lazy.compactMap { Self.firstMatch($0) }.first
    }

    /// True when the library is installed.
    public var isInstalled: Bool { location != nil }

    public var description: String { "`\(name)` (Debian package \(debianPackage))" }

    /// Returns when the library is installed; otherwise ends the current test as skipped with a reason
    /// naming it, or — under `ASSETPACK_REQUIRE_TOOLS=1` — records a failure and throws (``MissingTool``).
    public func require(sourceLocation: SourceLocation = #_sourceLocation) throws {
        if isInstalled { return }
        try asMissingTool.require(sourceLocation: sourceLocation)
    }

    /// A trait for a test that needs this library: skipped, with the reason shown, when it is missing
    /// (unless ``ExternalTool/missingToolsFail``, when the test runs and its ``require(sourceLocation:)`` fails).
    public var needed: ConditionTrait {
        isInstalled ? .enabled(if: true) : asMissingTool.needed
    }

    /// The library seen as a missing ``ExternalTool``, so both follow one policy with the same messages.
    /// Only used once the library is known missing; its name is a file name, which no command on `PATH`
    /// is called, so the tool's lookup finds nothing either.
    private var asMissingTool: ExternalTool { ExternalTool(name, package: debianPackage) }

    /// The first path matching `pattern` (`glob(3)`), or nil.
    private static func firstMatch(_ pattern: String) -> String? {
        var found = glob_t()
        defer { globfree(&found) }
        guard glob(pattern, 0, nil, &found) == 0, found.gl_pathc > 0, let first = found.gl_pathv[0] else { return nil }
        return String(cString: first)
    }
}

