import Foundation
import Testing

/// A folder on a file system whose files can share blocks (reflinks: XFS, Btrfs), named by the environment
/// variable `ASSETPACK_REFLINK_DIR`, for the tests of what an install leaves unwritten there. `.ci/run` mounts an XFS
/// image (Debian package `xfsprogs`) and names it; a machine without one skips those tests with the reason shown,
/// the policy of ``ExternalTool`` (a failure under `ASSETPACK_REQUIRE_TOOLS=1`).
public enum ReflinkFolder {
    /// The environment variable naming the folder.
    public static let variable = "ASSETPACK_REFLINK_DIR"

    /// The folder, when the variable names one where `cp --reflink=always` works; nil otherwise.
    public static let path: String? = {
        guard let folder = ProcessInfo.processInfo.environment[variable], !folder.isEmpty else { return nil }
        let probe = folder + "/.reflink-probe-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: probe); try? FileManager.default.removeItem(atPath: probe + "-clone") }
        guard FileManager.default.createFile(atPath: probe, contents: Data(repeating: 7, count: 8192)),
              (try? run("cp", ["--reflink=always", probe, probe + "-clone"]))?.status == 0 else { return nil }
        return folder
    }()

    /// Skipped, with the reason shown, when there is no such folder (a failure under `ASSETPACK_REQUIRE_TOOLS=1`).
    public static var needed: ConditionTrait {
        path != nil ? .enabled(if: true) : asMissingTool.needed
    }

    /// The folder, or the test ends as skipped (or fails under `ASSETPACK_REQUIRE_TOOLS=1`).
    public static func require(sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        if let path { return path }
        try asMissingTool.require(sourceLocation: sourceLocation)
        throw MissingTool(tool: asMissingTool)
    }

    /// The fraction of `file`'s bytes in extents it shares with another file (`filefrag -sv`, after a sync), from 0 to 1.
    public static func sharedFraction(of file: String) throws -> Double {
        let result = try run("filefrag", ["-sv", file])
        guard result.status == 0 else { throw MissingTool(tool: ExternalTool("filefrag", package: "e2fsprogs")) }
        var shared = 0.0, total = 0.0
        for line in result.stdout.split(separator: "\n") {
            guard let extent = line.firstMatch(of: /^\s*\d+:\s+\d+\.\.\s*\d+:\s+\d+\.\.\s*\d+:\s+(\d+):/) else { continue }
            let blocks = Double(extent.1) ?? 0
            total += blocks
            if line.contains("shared") { shared += blocks }
        }
        return total == 0 ? 0 : shared / total
    }

    /// The missing folder seen as a missing ``ExternalTool``, so it follows one policy with the same messages.
    private static var asMissingTool: ExternalTool {
        ExternalTool("\(variable)=<a folder on XFS or Btrfs>", package: "xfsprogs")
    }
}
