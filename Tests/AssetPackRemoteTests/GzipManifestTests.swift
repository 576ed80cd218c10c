import AssetPack
@testable import AssetPackRemote
import Foundation
import Testing
import TestSupport

/// A manifest a server sends gzip-compressed (nginx's `gzip`, a CDN's compression, a `.gz` file beside it):
/// decoded as it arrives, checked against its signature as decoded, counted as sent; damage in the gzip data
/// is one clear error.
@Suite struct GzipManifestTests {
    /// nginx compressing the manifest on the fly, and only it.
    static let compressing = #"location ~ /manifest\.json$ { gzip on; gzip_types *; gzip_min_length 1; }"#

    @Test(ExternalTool.nginx.needed)
    func aCompressedManifestIsDecodedCheckedAndCountedAsSent() async throws {
        let fixture = try await RemoteInstallFixture(serverConfig: Self.compressing)
        let files = RemoteInstallFixture.tree(version: 1)
        try fixture.publish(files)
        let preview = try UpdateSizeTests.dryRun(fixture)
        try await fixture.install()
        #expect(try snapshot(fixture.destination) == expectedSnapshot(files))
        let raw = try #require(try FileManager.default.attributesOfItem(atPath: fixture.served + "/" + BundleManifest.path)[.size] as? Int)
        let sent = await fixture.settledRequests().filter { $0.path.hasSuffix("/" + BundleManifest.path) }
        #expect(sent.count == 2 && sent.allSatisfy { $0.status == 200 && Int($0.bodyBytes) < raw / 2 },
                "the manifest (\(raw) bytes) crossed the network compressed: \(sent.map(\.bodyBytes))")
        #expect((preview.manifestBytes ?? 0) < UInt64(raw), "the dry run counts what was sent")
    }

    @Test(ExternalTool.nginx.needed)
    func aDamagedCompressedManifestIsOneErrorAndThePreviousTreeStays() async throws {
        let fixture = try await RemoteInstallFixture(serverConfig: "gzip_static on;")
        let version1 = RemoteInstallFixture.tree(version: 1)
        try fixture.publish(version1)
        try await fixture.install()
        try fixture.publish(RemoteInstallFixture.tree(version: 2))
        let manifest = fixture.served + "/" + BundleManifest.path
        var packed = try gzip(fileBytes(manifest))
        packed[packed.count / 2] ^= 0x55
        try Data(packed).write(to: URL(fileURLWithPath: manifest + ".gz"))
        let error = await expectFailure { try await fixture.install(options: testOptions(attempts: 2)) }
        #expect(error?.message.contains("gzip-compressed answer is damaged") == true, "\(String(describing: error))")
        #expect(error?.path == fixture.url.absoluteString + "/" + BundleManifest.path)
        #expect(try snapshot(fixture.destination) == expectedSnapshot(version1))
    }

    @Test func theDecoderChecksTheEndTheLengthAndTheLimit() throws {
        let text = Array(String(repeating: "{\"path\": \"a\"}\n", count: 5000).utf8)
        let packed = try gzip(text)
        func decode(_ bytes: [UInt8], limit: UInt64 = 1 << 20, pieces: Int = 7) throws(AssetPackError) -> [UInt8] {
            let memory = MemorySink()
            let sink = GzipDecodingSink(memory, url: "http://host/m.json", limit: limit)
            let step = max(1, bytes.count / pieces)
            for start in stride(from: 0, to: bytes.count, by: step) {
                var failure: AssetPackError?
                Array(bytes[start..<min(start + step, bytes.count)]).withUnsafeBytes { piece in
                    do throws(AssetPackError) { try sink.write(piece) } catch { failure = error }
                }
                if let failure { throw failure }
            }
            try sink.finish()
            return memory.bytes
        }
        #expect(try decode(packed) == text)
        #expect(try decode(packed, pieces: packed.count) == text)
        #expect(try decode(text) == text, "a body a transport decoded already passes as it is")
        #expect(throws: AssetPackError.self) { try decode(Array(packed.dropLast(9))) }
        #expect(throws: AssetPackError.self) { try decode(packed + [0]) }
        var wrongLength = packed
        wrongLength[wrongLength.count - 1] ^= 1
        #expect(throws: AssetPackError.self) { try decode(wrongLength) }
        #expect { try decode(packed, limit: 1000) } throws: { ($0 as? AssetPackError)?.code == .limitExceeded }
    }

    /// `bytes` compressed by the `gzip` command.
    func gzip(_ bytes: [UInt8]) throws -> [UInt8] {
        let result = try run("/bin/gzip", ["-c", "-9"], stdin: bytes)
        #expect(result.status == 0)
        return result.stdoutBytes
    }
}
