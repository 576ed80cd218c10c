import AssetPack
import Foundation

extension RemoteFetcher {
    /// Downloads a small resource whose hash is not known in advance (a bundle's identity, its manifest, the
    /// manifest's signature) into memory, whole, retried like any fetch (each try from the start).
    ///
    /// Nothing vouches for these bytes: check them (``ManifestTrust``) before using them.
    /// - Parameters:
    ///   - url: the resource (`https://`, or `http://` with ``FetchOptions/allowsPlainHTTP``).
    ///   - limit: the most bytes accepted; a longer resource is a `AssetPackError/Code/limitExceeded` error.
    public func fetchBytes(_ url: URL, limit: Int) async throws(AssetPackError) -> [UInt8] {
        try await AssetInstaller.onOwnThread { cancellation throws(AssetPackError) in
            try self.fetchBytes(url, limit: limit, cancellation)
        }
    }

    /// ``fetchBytes(_:limit:)`` on the calling thread, which blocks meanwhile; `progress` counts its bytes.
    func fetchBytes(_ url: URL, limit: Int, _ cancellation: ExpansionCancellation,
                    progress: FetchProgress? = nil) throws(AssetPackError) -> [UInt8] {
        let memory = MemorySink(limit: limit)
        try fetchWhole(url, limit: UInt64(limit), into: memory, cancellation, progress: progress)
        return memory.bytes
    }

    /// Downloads the resource at `url`, whose size and hash are not known in advance, into `sink` as it
    /// arrives, retried like any fetch: each try starts from the first byte (`DeliverySink.restart()`), at the
    /// next of `mirrors` when the server failed or lacks the resource (``MirrorRotation``), so the bytes come from
    /// one server. Nothing vouches for them: the caller checks them. A resource of more than `limit` bytes is a
    /// `AssetPackError/Code/limitExceeded` error. `progress`, when given, counts every byte received, and the
    /// resource as one item once complete. With `acceptsGzip`, the server may send it gzip-compressed
    /// (``GzipDecodingSink``): `sink` gets it decoded, `limit` applies to both forms, `progress` counts what crossed the network.
    /// - Returns: the URL that served it: `url` or one of `mirrors`.
    @discardableResult
    func fetchWhole(_ url: URL, mirrors: [URL] = [], limit: UInt64, into sink: some DeliverySink,
                    _ cancellation: ExpansionCancellation,
                    progress: FetchProgress? = nil, acceptsGzip: Bool = false) throws(AssetPackError) -> URL {
        var servers = MirrorRotation(.file(url, size: 0, sha256: nil, mirrors: mirrors))
        for url in servers.urls { try options.check(url) }
        var budget = RetryBudget(options.retry, url: url)
        while true {
            do {
                budget.requests += 1
                let size = try fetchOnce(servers.url, limit: limit, into: sink, cancellation, progress: progress,
                                         acceptsGzip: acceptsGzip)
                progress?.add(received: 0, completed: size)
                progress?.verified(size)
                return servers.url
            } catch {
                switch error.kind {
                case .transient(let retryAfter):
                    guard !servers.failed(progressed: false) else { continue }
                    try budget.wait(after: error.error, retryAfter: retryAfter, progressed: false,
                                    cancellation: cancellation)
                case .final where error.error.code == .notFound && servers.leaveOut():
                    continue
                case .changed, .final:
                    throw error.error
                }
            }
        }
    }

    /// One request for the resource; returns its size on the network.
    private func fetchOnce(_ url: URL, limit: UInt64, into target: some DeliverySink, _ cancellation: ExpansionCancellation,
                           progress: FetchProgress?, acceptsGzip: Bool) throws(AttemptFailure) -> UInt64 {
        var request = options.request(url)
        request.acceptsGzip = acceptsGzip
        let response: HTTPResponse
        do {
            response = try send(request, cancellation: cancellation)
        } catch {
            throw .transport(error)
        }
        defer { response.body.cancel() }
        guard response.status == 200 else {
            if response.status == 206 {
                throw .transient(AssetPackError(.io, "a 206 answer to a request without a range", path: url.absoluteString))
            }
            throw ResponsePlan.failure(response, url: url)
        }
        if let length = response.contentLength, length > limit { throw Self.tooLarge(url, limit) }
        let gzip = acceptsGzip && response.isGzipped ? GzipDecodingSink(target, url: url.absoluteString, limit: limit) : nil
        let sink: any DeliverySink = gzip ?? target
        do { try sink.restart() } catch { throw AttemptFailure(kind: .final, error: error) }
        var received: UInt64 = 0
        while true {
            let chunk: [UInt8]?
            do {
                chunk = try response.body.next()
            } catch {
                throw .transport(error)
            }
            guard let chunk else { break }
            guard received + UInt64(chunk.count) <= limit else { throw Self.tooLarge(url, limit) }
            received += UInt64(chunk.count)
            progress?.add(received: UInt64(chunk.count), completed: 0)
            let written = chunk.withUnsafeBytes { (bytes) in Result { () throws(AssetPackError) in try sink.write(bytes) } }
            if case .failure(let error) = written { throw AttemptFailure(kind: .final, error: error) }
        }
        if let length = response.contentLength, length != received {
            throw .transient(AssetPackError(.io, "the body ended after \(received) of \(length) bytes", path: url.absoluteString))
        }
        do { try gzip?.finish() } catch { throw .transient(error) }
        return received
    }

    private static func tooLarge(_ url: URL, _ limit: UInt64) -> AttemptFailure {
        AttemptFailure(kind: .final, error: AssetPackError(.limitExceeded, "larger than the \(limit) bytes allowed for it", path: url.absoluteString))
    }
}
