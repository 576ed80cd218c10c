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

    /// ``fetchBytes(_:limit:)`` on the calling thread, which blocks meanwhile.
    func fetchBytes(_ url: URL, limit: Int, _ cancellation: ExpansionCancellation) throws(AssetPackError) -> [UInt8] {
        try options.check(url)
        var budget = RetryBudget(options.retry, url: url)
        while true {
            do {
                budget.requests += 1
                return try fetchOnce(url, limit: limit, cancellation)
            } catch {
                switch error.kind {
                case .transient(let retryAfter):
                    try budget.wait(after: error.error, retryAfter: retryAfter, progressed: false,
                                    cancellation: cancellation)
                case .changed, .final:
                    throw error.error
                }
            }
        }
    }

    private func fetchOnce(_ url: URL, limit: Int,
                           _ cancellation: ExpansionCancellation) throws(AttemptFailure) -> [UInt8] {
        let request = HTTPRequest(url: url, timeout: options.timeout, allowsPlainHTTP: options.allowsPlainHTTP)
        let response: HTTPResponse
        do {
            response = try transport.get(request, cancellation: cancellation)
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
        if let length = response.contentLength, length > UInt64(limit) { throw Self.tooLarge(url, limit) }
        var bytes: [UInt8] = []
        while true {
            let chunk: [UInt8]?
            do {
                chunk = try response.body.next()
            } catch {
                throw .transport(error)
            }
            guard let chunk else { break }
            guard bytes.count + chunk.count <= limit else { throw Self.tooLarge(url, limit) }
            bytes += chunk
        }
        if let length = response.contentLength, length != UInt64(bytes.count) {
            throw .transient(AssetPackError(.io, "the body ended after \(bytes.count) of \(length) bytes", path: url.absoluteString))
        }
        return bytes
    }

    private static func tooLarge(_ url: URL, _ limit: Int) -> AttemptFailure {
        AttemptFailure(kind: .final, error: AssetPackError(.limitExceeded, "larger than the \(limit) bytes allowed for it", path: url.absoluteString))
    }
}
