import AssetPack
import Foundation
import Testing
import TestSupport
@testable import AssetPackPacker

/// A build killed midway leaves its temporary sibling (`.NAME.tmp-PID-XXXXXX`); the next build of the same output
/// removes it once its process is gone, and leaves alone a running build's, and everything that is not a build's.
@Suite struct BuildLeftoverTests {
    /// The id of a process that has ended.
    static func endedProcess() throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/true")
        try process.run()
        process.waitUntilExit()
        return process.processIdentifier
    }

    @Test(arguments: [false, true]) func aKilledBuildsLeftoversAreRemovedByTheNextBuild(archive: Bool) throws {
        let dir = try TemporaryDirectory("build-leftovers")
        try dir.write("src/a.txt", text: "a")
        let output = archive ? "app.zip" : "app.bundle"
        let dead = try Self.endedProcess(), alive = getpid()
        let leftovers = [".\(output).tmp-\(dead)-Ab12Cd", ".\(output).old-\(dead)-Ef34Gh"]
        let kept = [".\(output).tmp-\(alive)-Ij56Kl", ".\(output).tmp-Mn78Op", ".other.tmp-\(dead)-Qr90St", ".\(output).tmp-x-Uv12Wx"]
        for name in leftovers + kept { try dir.write(name + "/inner.bin", text: "partial") }
        let packer = Packer(options: BuildOptions(jobs: 1))
        _ = archive ? try packer.buildArchive(source: dir.file("src"), output: dir.file(output))
            : try packer.build(source: dir.file("src"), output: dir.file(output))
        let names = Set(folderNames(dir.path))
        for name in leftovers { #expect(!names.contains(name), "\(name) removed") }
        for name in kept { #expect(names.contains(name), "\(name) kept") }
        #expect(names.contains(output))
        #expect(!names.contains { $0.hasPrefix(".\(output).tmp-\(getpid())-") && !kept.contains($0) }, "\(names)")
    }
}
