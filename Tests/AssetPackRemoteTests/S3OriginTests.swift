import AssetPack
@testable import AssetPackRemote
import Foundation
import Testing
import TestSupport

/// What an S3-compatible origin (SeaweedFS) answers its own way: a multipart upload's ETag (`"<md5>-<parts>"`,
/// which depends on the part size, not only on the bytes; parts are at least 5 MiB but the last), ranges, and
/// errors as XML bodies with 403 and 404. One store for all (each store is several servers: a heavy load beside
/// the other suites). Installing and upgrading a bundle from it is in ``CacheAndStoreDeliveryTests``.
@Suite struct S3OriginTests {
    @Test func multipartETagsRangesAnd403And404AreHandled() async throws {
        let site = try await Site([:], route: .s3)
        try await multipartObjectIsFetchedWholeAndInRanges(site)
        try await errorIsOneClearErrorNamingTheURLAndTheStatus(site, "assets/missing.bin", .notFound, 404)
        try await errorIsOneClearErrorNamingTheURLAndTheStatus(site, "private/x.bin", .network, 403)
    }

    /// An object uploaded in 3 parts comes whole (in ranges of 4 MiB) and as a range, under its multipart ETag,
    /// and no byte crosses twice.
    func multipartObjectIsFetchedWholeAndInRanges(_ site: Site) async throws {
        let data = testBytes(11_000_000, seed: 7)
        try await #require(site.store).put("big.bin", data, partSize: 5 << 20)
        var options = testOptions()
        options.maxRequestBytes = 4 << 20
        let (whole, result) = try await site.fetch(fileItem(site.url("big.bin"), data), options: options)
        #expect(whole == data)
        #expect(result.requests == 3, "ranges of 4 MiB")
        let etag = try #require(result.etag)
        #expect(etag.hasPrefix("\"") && etag.hasSuffix("-3\""), "a multipart ETag: \(etag)")
        let range = 1_000_000..<2_500_000
        let item = FetchItem.bytes(UInt64(range.lowerBound)..<UInt64(range.upperBound), of: site.url("big.bin"),
                                   sha256: ContentHash.of(Array(data[range])), etag: etag)
        #expect(try await site.fetch(item, options: options).bytes == Array(data[range]))
        let sent = await site.client.requests().filter { $0.path.hasSuffix("/big.bin") }
        #expect(sent.allSatisfy { $0.status == 206 }, "\(sent.map(\.status))")
        #expect(sent.reduce(0) { $0 + $1.bodyBytes } == UInt64(data.count + range.count), "no byte crossed twice")
    }

    /// S3's 404 (`NoSuchKey`) and 403 (`AccessDenied`, a bucket anonymous requests may not read), each with an
    /// XML body: one error, not retried, naming the URL and the status.
    func errorIsOneClearErrorNamingTheURLAndTheStatus(_ site: Site, _ path: String, _ code: AssetPackError.Code,
                                                      _ status: Int) async throws {
        let url = site.client.url(path)
        let error = await site.failure(fileItem(url, [1, 2, 3]))
        #expect(error?.code == code)
        #expect(error?.path == url.absoluteString)
        #expect(error?.message.contains("HTTP \(status)") == true, "\(String(describing: error))")
        #expect(await site.client.requests().filter { $0.path == url.path }.count == 1, "not retried")
    }
}
