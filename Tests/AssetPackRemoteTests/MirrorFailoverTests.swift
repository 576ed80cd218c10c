import AssetPack
@testable import AssetPackRemote
import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A bundle on two or three real nginx (`RemoteBundle(url, mirrors:)`, `expand URL --mirror URL2`): a primary
/// killed in the middle of a large file leaves the rest of that file, from the byte where it stopped, and of the
/// install to a mirror; a primary down from the start is passed over; a mirror holding an older version gives the
/// new tree from a good mirror, or one clear error when there is none, never a mixed tree.
@Suite(ExternalTool.nginx.needed)
struct MirrorFailoverTests {
    static let trust = ManifestTrust.signed(by: [RemoteInstallFixture.key.publicKey])

    @Test func aPrimaryKilledMidTransferLeavesTheRestToTheMirrorFromWhereItStopped() async throws {
        // 1 MB/s a connection: the 6 MiB file takes seconds from the primary, which is killed a MiB into that file, on
        // the thread that receives that MiB (so the kill lands mid-file however slow the machine is).
        let fixture = try await RemoteInstallFixture(serverConfig: "limit_rate 1m;")
        var files = RemoteInstallFixture.tree(version: 1)
        var random = SeededRandom(seed: 33)
        files["media/movie.bin"] = random.bytes(6 << 20)
        try fixture.publish(files)
        let mirror = try await Self.mirror(of: fixture)
        let transport = ReceivedBytes()
        let fetcher = RemoteFetcher(options: testOptions(), transport: transport)
        let bundle = RemoteBundle(fixture.url, mirrors: [mirror.url(fixture.folder)])
        let preview = try bundle.dryRun(into: fixture.destination, trust: Self.trust, fetcher: fetcher)
        let (plan, pointers) = (try #require(preview.bytesToFetch), try #require(preview.manifestBytes))
        let planning = transport.count
        let primary = try #require(fixture.site.server.pid)
        let killed = Flag(), killedAfter: UInt64 = 1 << 20
        let movie = try fixture.storage(of: "media/movie.bin")
        transport.after(killedAfter, of: movie.file) {
            kill(primary, SIGKILL)
            _ = killed.set()
        }
        try await bundle.install(into: fixture.destination, trust: Self.trust, fetcher: fetcher)
        #expect(killed.isSet, "the primary was killed mid-install")
        #expect(try snapshot(fixture.destination) == expectedSnapshot(files))
        let received = transport.count - planning
        let fromMirror = UpdateSizeTests.bytes(await mirror.settledRequests())
        #expect(received - pointers <= plan + (64 << 10),
                "\(received - pointers) bytes of file data received, \(plan) planned")
        // Not all of the rest: what the primary's kernel had sent before the kill still arrives.
        #expect(fromMirror > plan / 4, "the mirror sent the rest: \(fromMirror) of \(plan) bytes")
        #expect(fromMirror + killedAfter <= plan,
                "what the primary sent before it was killed is not fetched again: \(fromMirror) from the mirror")
        report("mirror failover\tprimary killed \(killedAfter) bytes into the 6 MiB file\treceived \(received - pointers), "
               + "from the mirror \(fromMirror)\tplanned \(plan)")
        // Ranges of one file start 2 MiB (FetchOptions.maxRequestBytes) apart; the mirror's first one, where the
        // primary stopped.
        let starts = await mirror.requests().filter { $0.path.hasSuffix(movie.file) && $0.status == 206 }
            .compactMap { $0.range?.dropFirst("bytes=".count).split(separator: "-").first.flatMap { UInt64($0) } }
        let offset = try #require(movie.dataOffset)
        #expect(starts.contains { ($0 - offset) % (2 << 20) != 0 }, "the file went on where it stopped: \(starts)")
    }

    @Test func aPrimaryDownFromTheStartIsPassedOverByTheCommandLine() async throws {
        let fixture = try await RemoteInstallFixture()
        let files = RemoteInstallFixture.tree(version: 1)
        try fixture.publish(files)
        let mirror = try await Self.mirror(of: fixture)
        fixture.site.server.stop()
        let key = fixture.scratch.file("key.pub")
        try RemoteInstallFixture.key.publicKey.write(to: key)
        let run = try await runOnOwnThread(builtProduct("assetpack"), [
            "expand", fixture.url.absoluteString, "--mirror", mirror.url(fixture.folder).absoluteString,
            "--to", fixture.destination, "--allow-http", "--public-key", key, "--no-sync"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try snapshot(fixture.destination) == expectedSnapshot(files))
        #expect(await mirror.requests().contains { UpdateSizeTests.isPointer($0) }, "the pointer came from the mirror")
    }

    @Test func aMirrorHoldingAnOlderVersionGivesTheTreeOfAGoodMirrorOrOneClearError() async throws {
        let fixture = try await RemoteInstallFixture()
        let version1 = RemoteInstallFixture.tree(version: 1), version2 = RemoteInstallFixture.tree(version: 2)
        try fixture.publish(version1)
        let old = try await Self.mirror(of: fixture)
        try fixture.publish(version2)
        let good = try await Self.mirror(of: fixture)
        // The primary has the new pointer but lost the large file's archive: its blocks must come from a mirror.
        let archive = try fixture.storage(of: "data/big.txt").file
        try FileManager.default.removeItem(atPath: fixture.served + "/" + archive)
        let fetcher = RemoteFetcher(options: testOptions())
        let onlyOld = RemoteBundle(fixture.url, mirrors: [old.url(fixture.folder)])
        let error = await expectFailure {
            try await onlyOld.install(into: fixture.destination, trust: Self.trust, fetcher: fetcher)
        }
        #expect(error?.code == .verification, "\(String(describing: error))")
        #expect(error?.path == old.url(fixture.folder + "/" + archive).absoluteString, "\(String(describing: error))")
        #expect(!FileManager.default.fileExists(atPath: fixture.destination))
        let withGood = RemoteBundle(fixture.url, mirrors: [old.url(fixture.folder), good.url(fixture.folder)])
        try await withGood.install(into: fixture.destination, trust: Self.trust, fetcher: fetcher)
        #expect(try snapshot(fixture.destination) == expectedSnapshot(version2))
        #expect(await good.requests().contains { $0.path.hasSuffix(archive) },
                "the changed block came from the good mirror")
    }

    /// A second nginx serving a copy of the fixture's bundle folder as it is now, under the same name.
    static func mirror(of fixture: RemoteInstallFixture) async throws -> NginxServer {
        let mirror = try await startNginx()
        try FileManager.default.copyItem(atPath: fixture.served, toPath: mirror.root + "/" + fixture.folder)
        return mirror
    }
}

/// The socket transport, counting the body bytes it hands to the fetcher: what crossed the network to the client,
/// whichever server sent it; and, once, doing something when a given count is reached.
private final class ReceivedBytes: HTTPTransport, @unchecked Sendable {
    private let inner = SocketHTTPTransport(maximumConnectionsPerHost: 8)
    private let lock = NSLock()
    private var total: UInt64 = 0
    private var trigger: (bytes: UInt64, file: String, action: () -> Void)?

    /// Body bytes received so far.
    var count: UInt64 { lock.withLock { total } }

    /// Calls `action` once, on the thread that receives them, when `bytes` bytes of the file whose path ends with
    /// `file` have been received.
    func after(_ bytes: UInt64, of file: String, _ action: @escaping () -> Void) {
        lock.withLock { trigger = (bytes, file, action) }
    }

    func get(_ request: HTTPRequest, cancellation: ExpansionCancellation) throws(AssetPackError) -> HTTPResponse {
        var response = try inner.get(request, cancellation: cancellation)
        response.body = CountingBody(response.body) { [self] bytes in
            let due: (() -> Void)? = lock.withLock {
                total += bytes
                guard var trigger, request.url.path.hasSuffix(trigger.file) else { return nil }
                trigger.bytes -= min(bytes, trigger.bytes)
                self.trigger = trigger
                guard trigger.bytes == 0 else { return nil }
                defer { self.trigger = nil }
                return trigger.action
            }
            due?()
        }
        return response
    }
}

/// A body that reports the size of each chunk it passes on.
private final class CountingBody: HTTPBody, @unchecked Sendable {
    private let body: any HTTPBody
    private let counted: (UInt64) -> Void

    init(_ body: any HTTPBody, counted: @escaping (UInt64) -> Void) {
        (self.body, self.counted) = (body, counted)
    }

    func next() throws(AssetPackError) -> [UInt8]? {
        let chunk = try body.next()
        counted(UInt64(chunk?.count ?? 0))
        return chunk
    }

    func cancel() { body.cancel() }
}
