import Foundation
import Testing

/// An outside program a test needs: another zip reader or writer to prove interoperability, a packaging tool,
/// a server.
///
/// The one policy for such tests: when the tool is missing the test is **skipped with a visible reason**
/// (Swift Testing reports it as skipped, naming the tool and the Debian package to install), so `swift test`
/// passes on a machine that has only Swift and zlib. When the environment variable
/// `ASSETPACK_REQUIRE_TOOLS=1` is set — `.ci/run` sets it after installing every tool — a missing tool is a
/// test **failure** instead, so CI never silently runs fewer checks.
public struct ExternalTool: Sendable, CustomStringConvertible {
    /// The command looked up on `PATH`.
    public let command: String
    /// The Debian package that provides it.
    public let debianPackage: String

    /// Describes a tool by its command and the Debian package that provides it.
    public init(_ command: String, package: String) {
        self.command = command
        self.debianPackage = package
    }

    /// Info-ZIP `zip`.
    public static let zip = ExternalTool("zip", package: "zip")
    /// Info-ZIP `unzip`.
    public static let unzip = ExternalTool("unzip", package: "unzip")
    /// libarchive's `bsdtar`.
    public static let bsdtar = ExternalTool("bsdtar", package: "libarchive-tools")
    /// 7-Zip.
    public static let sevenZip = ExternalTool("7z", package: "p7zip-full")
    /// The JDK's `jar`.
    public static let jar = ExternalTool("jar", package: "default-jdk-headless")
    /// CPython, for its `zipfile` module.
    public static let python3 = ExternalTool("python3", package: "python3")
    /// util-linux's `setpriv`, to run a command as another user.
    public static let setpriv = ExternalTool("setpriv", package: "util-linux")

    /// The environment variable that turns a missing tool from a skip into a failure.
    public static let requireVariable = "ASSETPACK_REQUIRE_TOOLS"

    /// True when every missing tool must fail its test (`ASSETPACK_REQUIRE_TOOLS=1`, set by `.ci/run`).
    public static var missingToolsFail: Bool { ProcessInfo.processInfo.environment[requireVariable] == "1" }

    /// True when the command is on `PATH`.
    public var isInstalled: Bool { ToolCache.shared.isInstalled(command) }

    public var description: String { "`\(command)` (Debian package \(debianPackage))" }

    /// Returns when the tool is installed; otherwise ends the current test (or test case) as skipped with a
    /// reason naming the tool, or — under `ASSETPACK_REQUIRE_TOOLS=1` — records a failure and throws.
    public func require(sourceLocation: SourceLocation = #_sourceLocation) throws {
        if isInstalled { return }
        if Self.missingToolsFail {
            Issue.record("\(self) is not installed, and \(Self.requireVariable)=1 requires it",
                         sourceLocation: sourceLocation)
            throw MissingTool(tool: self)
        }
        // A cancelled case of a parameterized test does not show in the summary: say it on stderr too.
        FileHandle.standardError.write(Data("note: skipped a test: \(self) is not installed\n".utf8))
        try Test.cancel("skipped: \(self) is not installed (set \(Self.requireVariable)=1 to make this a failure)",
                        sourceLocation: sourceLocation)
    }

    /// A trait for a test that needs this tool: the test is skipped, with the reason shown, when the tool is
    /// missing (unless ``missingToolsFail``, when it runs and its ``require(sourceLocation:)`` fails). Use it
    /// on tests whose every case needs the tool, so the skip shows in the run's summary.
    public var needed: ConditionTrait {
        .enabled(if: isInstalled || Self.missingToolsFail,
                 "\(self) is not installed (set \(Self.requireVariable)=1 to make this a failure)")
    }

    /// ``require(sourceLocation:)`` for several tools at once.
    public static func require(_ tools: ExternalTool..., sourceLocation: SourceLocation = #_sourceLocation) throws {
        for tool in tools { try tool.require(sourceLocation: sourceLocation) }
    }
}

/// Thrown by ``ExternalTool/require(sourceLocation:)`` when a required tool is missing.
public struct MissingTool: Error, CustomStringConvertible {
    /// The missing tool.
    public let tool: ExternalTool
    public var description: String { "\(tool) is not installed" }
}

/// Remembers `command -v` answers for the run.
private final class ToolCache: @unchecked Sendable {
    static let shared = ToolCache()
    private let lock = NSLock()
    private var answers: [String: Bool] = [:]

    func isInstalled(_ command: String) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        if let known = answers[command] { return known }
        let found = toolExists(command)
        answers[command] = found
        return found
    }
}
