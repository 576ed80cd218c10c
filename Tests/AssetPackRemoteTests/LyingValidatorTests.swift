import AssetPack
@testable import AssetPackRemote
import Foundation
import Testing
import TestSupport

/// Validators that lie: nginx's ETag is the file's modification time and size (`"<mtime>-<size>"` in hex, as
/// Apache's and Caddy's are), so a file rewritten with the same size and time keeps its tag and passes `If-Range`,
/// and a download resumed across the rewrite splices two versions. The install must end in the new tree.
@Suite(ExternalTool.nginx.needed)
struct LyingValidatorTests {
    /// Version `version` of a bundle of one large file of random bytes, the same size in every version.
    static func tree(version: Int) -> [String: [UInt8]] {
        ["media/clip.bin": testBytes(3 << 20, seed: UInt64(version))]
    }

    @Test func aFileRewrittenWithTheSameSizeAndTimeDuringADownloadEndsInTheNewTree() async throws {
        let holder = Holder()
        let rewritten = Flag()
        // Requests 0–2 are the identity, the manifest and its signature; request 3, the first of the large file,
        // breaks off after 30,000 bytes, and before its resumption the bundle is published again: built beforehand
        // and swapped in by two renames, so no retry of a client that waited too long can be served before it.
        let fixture = try await RemoteInstallFixture(faults: { $0 == 3 ? .dropAfter(bytes: 30_000) : .none }, onRequest: { number in
            guard number == 4, rewritten.set(), let fixture = holder.fixture, let next = holder.next else { return }
            try? fixture.serve(next)
        })
        holder.fixture = fixture
        try fixture.publish(Self.tree(version: 1))
        holder.next = try fixture.prepareKeepingTimes(Self.tree(version: 2))
        try await fixture.install(options: testOptions(concurrency: 1))
        #expect(rewritten.isSet)
        #expect(try snapshot(fixture.destination) == expectedSnapshot(Self.tree(version: 2)))
        let resumed = await fixture.requests().filter { $0.ifRange != nil && $0.status == 206 }
        #expect(!resumed.isEmpty, "the rewritten file kept its ETag: nginx answered the If-Range request with a range")
    }
}

extension RemoteInstallFixture {
    /// Builds `files` into a bundle beside the served one, each of its files with the modification time the served
    /// file of the same path has (`touch -d`): once ``serve(_:)`` puts it in place, a file of the same size keeps its
    /// nginx ETag.
    func prepareKeepingTimes(_ files: [String: [UInt8]]) throws -> String {
        let next = scratch.file("next-\(UUID().uuidString)")
        try publish(files, into: next)
        let paths = FileManager.default.enumerator(atPath: next)?.compactMap { $0 as? String } ?? []
        for path in paths where FileManager.default.fileExists(atPath: served + "/" + path) {
            let time = try FileManager.default.attributesOfItem(atPath: served + "/" + path)[.modificationDate]
            guard let time else { continue }
            try FileManager.default.setAttributes([.modificationDate: time], ofItemAtPath: next + "/" + path)
        }
        return next
    }

    /// Serves the bundle `next` in place of the served one (moved aside).
    func serve(_ next: String) throws {
        try FileManager.default.moveItem(atPath: served, toPath: scratch.file("served-before-\(UUID().uuidString)"))
        try FileManager.default.moveItem(atPath: next, toPath: served)
    }
}
