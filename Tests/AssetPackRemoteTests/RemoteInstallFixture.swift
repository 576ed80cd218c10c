import AssetPack
import AssetPackPacker
@testable import AssetPackRemote
import Foundation
import Testing
import TestSupport

/// A signed bundle on a real nginx (optionally behind the fault proxy) and a destination to install it into:
/// what the remote install tests share. The tree is generated (seeded): 24 small text files, a 200 KB file of
/// random bytes (packed, stored, in chunks), and a 3 MiB text file deflated in content-defined chunks of 16 KiB on
/// average (a quarter of the default, so that test files have many); the small text files are members of pack archives (the default layout), each fetched as a range of its archive.
final class RemoteInstallFixture: @unchecked Sendable {
    static let key = SigningKey.generate()
    let site: Site
    let scratch: TemporaryDirectory
    /// Where the installs go (a test may choose another folder).
    var destination: String
    /// The name of the bundle folder on the server (a test may publish each version under a name of its own).
    var folder = "app.bundle"
    /// Whether ``publish(_:sign:)`` names the bundle's objects by their SHA-256 (`BuildOptions.immutableNames`).
    var immutableNames = false
    /// The bundle folder on the server.
    var served: String { site.server.root + "/" + folder }

    init(route: Route = .direct, serverConfig: String = "", faults: (@Sendable (Int) -> FaultProxy.Fault)? = nil,
         onRequest: (@Sendable (Int) -> Void)? = nil, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        site = try await Site([:], serverConfig: serverConfig, route: route, onRequest: onRequest, faults: faults,
                              sourceLocation: sourceLocation)
        scratch = try TemporaryDirectory("remote-install")
        destination = scratch.file("installed/assets")
    }

    /// The generated tree: version 1, or version 2 with one small file and one block of the large file changed.
    static func tree(version: Int) -> [String: [UInt8]] {
        var random = SeededRandom(seed: 1515)
        var files: [String: [UInt8]] = [:]
        for index in 0..<24 { files["text/\(index / 8)/f\(index).txt"] = random.text(1000 + 137 * index) }
        files["media/clip.bin"] = random.bytes(200_000)
        files["data/big.txt"] = random.text(3 << 20)
        if version >= 2 {
            files["text/0/f7.txt"] = Array("changed in version 2\n".utf8)
            files["data/big.txt"]!.replaceSubrange(1_500_000..<1_500_016, with: Array("VERSION-2-BLOCK!".utf8))
        }
        return files
    }

    /// Writes `files` as a source folder and builds them into the served bundle (signed unless `sign` is false), over
    /// the bundle served before (which lends its archives and is patched from), or anew when `anew`; into `output`
    /// instead when given (a bundle to serve later).
    @discardableResult
    func publish(_ files: [String: [UInt8]], sign: Bool = true, anew: Bool = false,
                 into output: String? = nil) throws -> String {
        if anew && FileManager.default.fileExists(atPath: served) {
            try FileManager.default.moveItem(atPath: served, toPath: scratch.file("served-before-\(UUID().uuidString)"))
        }
        let source = scratch.file("src-\(UUID().uuidString)")
        for (path, bytes) in files {
            try FileManager.default.createDirectory(atPath: (source + "/" + path as NSString).deletingLastPathComponent,
                                                    withIntermediateDirectories: true)
            try Data(bytes).write(to: URL(fileURLWithPath: source + "/" + path))
        }
        var rules = PackingRules(threshold: 64 << 10)
        rules.chunking = ContentChunking(averageBits: 14)!
        var options = BuildOptions(rules: rules)
        options.immutableNames = immutableNames
        _ = try Packer(options: options).build(source: source, output: output ?? served)
        if sign { try BundleSigning.sign(bundle: output ?? served, with: Self.key) }
        return source
    }

    /// ``publish(_:sign:)``, then, on the S3 route, uploads the bundle to the store: its files first, then its
    /// identity, manifest and signature (files over 5 MiB, S3's smallest part, as multipart uploads).
    func publishOnRoute(_ files: [String: [UInt8]]) async throws {
        try publish(files)
        let pointer: Set = [BundleManifest.identityPath, BundleManifest.path, ManifestSignature.path]
        try await site.store?.upload(folder: served, as: folder, last: pointer, partSize: 5 << 20)
    }

    /// The bundle's URL (through the proxy when there is one).
    var url: URL { site.url(folder) }

    /// Installs the served bundle into ``destination``, trusting ``key`` (not flushed unless `durability` says so).
    @discardableResult
    func install(trust: ManifestTrust = .signed(by: [RemoteInstallFixture.key.publicKey]), options: FetchOptions = testOptions(),
                 durability: Durability = .none, inPlace: Bool = false) async throws(AssetPackError) -> ExpansionResult {
        var expansion = ExpansionOptions(durability: durability)
        expansion.upgradesInPlace = inPlace
        return try await RemoteBundle(url).install(into: destination, trust: trust, options: expansion,
                                                   fetcher: RemoteFetcher(options: options))
    }

    /// ``install(trust:options:durability:)`` through `RemoteBundle.statusUpdates`: the last download counts it
    /// reported (bytes of file data received, and the total its plan announced).
    func installCountingDownload() async throws -> (done: UInt64, total: UInt64) {
        var last: (UInt64, UInt64) = (0, 0)
        let trust = ManifestTrust.signed(by: [Self.key.publicKey])
        for try await status in RemoteBundle(url).statusUpdates(into: destination, trust: trust,
                                                                fetcher: RemoteFetcher(options: testOptions())) {
            if case .downloading(let done, let total) = status { last = (done, total) }
        }
        return last
    }

    /// How the served bundle stores the file at `path` (small files are members of pack archives).
    func storage(of path: String) throws -> BundleManifest.Storage {
        try #require(try readManifest(served).entries.first { $0.path == path }?.storage)
    }

    /// The request path of the stored file (plain file or archive) that holds the file at `path`.
    func requestPath(of path: String) throws -> String { "/app.bundle/" + (try storage(of: path)).file }

    /// The requests nginx logged so far (through the proxy or not).
    func requests() async -> [NginxServer.Request] { await site.server.requests() }

    /// Body bytes the client received so far (from the server it talks to: the origin, a cache or a store).
    /// nginx logs a request once its response is sent, which can be a moment after the client has it: this waits
    /// until the log stops growing (for at most 2 s).
    func bytesReceived() async -> UInt64 {
        await settledRequests().reduce(0) { $0 + $1.bodyBytes }
    }

    /// The requests the server the client talks to logged so far, once its log stops growing (see ``bytesReceived()``).
    func settledRequests() async -> [NginxServer.Request] { await site.client.settledRequests() }

    /// Bytes of every file of the served bundle.
    func bundleSize() throws -> UInt64 {
        let files = FileManager.default.enumerator(atPath: served)?.compactMap { $0 as? String } ?? []
        return try files.reduce(0) { sum, path in
            let attributes = try FileManager.default.attributesOfItem(atPath: served + "/" + path)
            return sum + ((attributes[.type] as? FileAttributeType) == .typeRegular ? (attributes[.size] as? UInt64 ?? 0) : 0)
        }
    }
}

extension RemoteInstallFixture {
    /// Runs `assetpack expand` on the bundle, killed with SIGKILL once `afterBytes` bytes are written, then again to the
    /// end, and expects the second run to keep some of what the first wrote.
    func expandKilledThenResumed(afterBytes: Int, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let arguments = try await expandKilled(afterBytes: afterBytes, sourceLocation: sourceLocation)
        let finished = try await runOnOwnThread(builtProduct("assetpack"), arguments + ["--json"])
        #expect(finished.status == 0, "\(finished.stderr)", sourceLocation: sourceLocation)
        let summary = try JSONDecoder().decode(Resumed.self, from: Data(finished.stdout.utf8))
        #expect(summary.filesResumed > 0 || summary.bytesResumed > 0, "the second run kept what the first wrote: \(finished.stdout)",
                sourceLocation: sourceLocation)
    }
}

extension RemoteInstallFixture {
    /// Runs `assetpack expand` on the bundle, killed with SIGKILL once `afterBytes` bytes are written (nothing is
    /// switched in); returns its arguments.
    func expandKilled(afterBytes: Int, sourceLocation: SourceLocation = #_sourceLocation) async throws -> [String] {
        let key = scratch.file("key.pub")
        try RemoteInstallFixture.key.publicKey.write(to: key)
        let arguments = ["expand", url.absoluteString, "--to", destination, "--allow-http", "--public-key", key,
                         "--no-sync", "--jobs", "2"]
        let killed = try await runOnOwnThread(builtProduct("assetpack"), arguments,
                                              environment: ["ASSETPACK_TEST_KILL_AFTER_BYTES": String(afterBytes)])
        #expect(killed.status == 128 + 9, "\(killed.stderr)", sourceLocation: sourceLocation)
        #expect(!FileManager.default.fileExists(atPath: destination), sourceLocation: sourceLocation)
        return arguments
    }
}

/// What the `--json` line of a resumed `expand` says it kept.
private struct Resumed: Decodable {
    var filesResumed: Int
    var bytesResumed: UInt64
}

extension NginxServer {
    /// The requests logged so far, once the log stops growing (for 0.2 s): nginx logs a request once its response
    /// is sent, which can be a moment after the client has it.
    func settledRequests() async -> [Request] {
        var count = -1
        var log = await requests()
        while log.count != count {
            count = log.count
            log = await requests(atLeast: count + 1, timeout: 0.2)
        }
        return log
    }
}

/// `files` as the snapshot of a folder holding them.
func expectedSnapshot(_ files: [String: [UInt8]]) throws -> [String: Node] {
    let scratch = try TemporaryDirectory("expected")
    for (path, bytes) in files {
        try FileManager.default.createDirectory(atPath: (scratch.file(path) as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        try Data(bytes).write(to: scratch.url(path))
    }
    return try snapshot(scratch.path)
}
