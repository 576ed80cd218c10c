import AssetPack
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What one response means for a download: which of its body's bytes to skip, how many to take, and whether
/// the download starts over because the resource changed. Error statuses become ``AttemptFailure``s.
struct ResponsePlan {
    /// Body bytes before the wanted ones (a 200 answer to a range request).
    var skip: UInt64
    /// Bytes to take.
    var take: UInt64
    /// Whether the body should end right after them (a 206 that carries exactly them).
    var endsAfter: Bool

    private init(skip: UInt64, take: UInt64, endsAfter: Bool) {
        self.skip = skip
        self.take = take
        self.endsAfter = endsAfter
    }

    init<Sink>(_ response: HTTPResponse, for download: Download<Sink>) throws(AttemptFailure) {
        switch response.status {
        case 206: self = try Self.partial(response, download)
        case 200: self = try Self.whole(response, download)
        default: throw Self.failure(response, url: download.servers.url)
        }
    }

    /// 206: the range must start at the first wanted byte, come from the same version of the resource, and
    /// may carry fewer bytes than asked (the rest is asked for next).
    private static func partial<Sink>(_ response: HTTPResponse, _ download: Download<Sink>) throws(AttemptFailure) -> ResponsePlan {
        let wanted = download.wanted
        guard let carried = response.contentRange else {
            let header = response.headers["content-range"] ?? "none"
            throw .transient(AssetPackError(.io, "a 206 answer without a valid Content-Range (\(header))", path: download.url))
        }
        guard carried.range.lowerBound == wanted.lowerBound else {
            let sent = "\(carried.range.lowerBound)..<\(carried.range.upperBound)"
            throw .transient(AssetPackError(.io, "asked for bytes from \(wanted.lowerBound), the server sent \(sent)", path: download.url))
        }
        if let known = download.etag, let tag = response.etag, known != tag {
            download.adopt(tag)
            throw changed("the file changed on the server during the download (ETag \(known), now \(tag))", download)
        }
        if download.item.range == nil, let complete = carried.completeLength, complete != download.item.length {
            throw changed("the file has \(complete) bytes on the server, \(download.item.length) are expected", download)
        }
        if download.etag == nil { download.adopt(response.etag) }
        let take = min(UInt64(carried.range.count), download.remaining)
        return ResponsePlan(skip: 0, take: take, endsAfter: take == UInt64(carried.range.count))
    }

    /// 200: the whole resource. If bytes were already in and the resource's tag is not the one they came with
    /// (or unknown), the download starts over; then the wanted bytes are cut out of the body.
    private static func whole<Sink>(_ response: HTTPResponse, _ download: Download<Sink>) throws(AttemptFailure) -> ResponsePlan {
        if download.received > 0, download.etag == nil || response.etag != download.etag {
            do {
                try download.restart()
            } catch {
                throw AttemptFailure(kind: .final, error: error)
            }
        }
        if download.received == 0 { download.adopt(response.etag) }
        if let length = response.contentLength {
            let item = download.item
            let needed = download.wanted.upperBound
            if item.range == nil, length != item.length {
                throw changed("the file has \(length) bytes on the server, \(item.length) are expected", download)
            }
            if length < needed { throw changed("the file has \(length) bytes on the server, bytes up to \(needed) are needed", download) }
        }
        return ResponsePlan(skip: download.wanted.lowerBound, take: download.remaining, endsAfter: download.item.range == nil)
    }

    private static func changed<Sink>(_ message: String, _ download: Download<Sink>) -> AttemptFailure {
        AttemptFailure(kind: .changed, error: AssetPackError(.verification, message, path: download.url))
    }

    /// Reads the body into the download: skips, takes ``take`` bytes, and stops the transfer when more
    /// follows. A body that ends sooner is a retryable failure (what arrived is kept).
    func read<Sink>(_ body: any HTTPBody, into download: Download<Sink>) throws(AttemptFailure) {
        var skip = self.skip
        var taken: UInt64 = 0
        while taken < take {
            let chunk: [UInt8]?
            do {
                chunk = try body.next()
            } catch {
                throw .transport(error)
            }
            guard let chunk else {
                let missing = "\(take - taken) of the \(take) bytes wanted from it are missing"
                throw .transient(AssetPackError(.io, "the body ended early: \(missing)", path: download.url))
            }
            do {
                taken += try download.take(chunk, skip: &skip, limit: take - taken)
            } catch {
                throw AttemptFailure(kind: .final, error: error)
            }
        }
        if endsAfter, (try? body.next()) == nil { return }
        body.cancel()
    }

    /// The failure an error status stands for.
    static func failure(_ response: HTTPResponse, url: URL) -> AttemptFailure {
        let status = response.status
        let path = url.absoluteString
        let text = "HTTP \(status) (\(HTTPURLResponse.localizedString(forStatusCode: status)))"
        switch status {
        case 404, 410:
            return AttemptFailure(kind: .final, error: AssetPackError(.notFound, "not on the server: \(text)", path: path))
        case 416:
            let error = AssetPackError(.verification, "the file on the server is shorter than expected: \(text)", path: path)
            return AttemptFailure(kind: .changed, error: error)
        case 408, 425, 429, 500...599:
            return .transient(AssetPackError(.io, "the server answered \(text)", path: path), retryAfter: response.retryAfter)
        case 300...399:
            let target = response.headers["location"] ?? "nowhere"
            let why = target.lowercased().hasPrefix("http:") ? ": plain HTTP is not allowed" : ""
            let error = AssetPackError(.invalidArgument, "\(text): redirect to \(target) not followed\(why)", path: path)
            return AttemptFailure(kind: .final, error: error)
        default:
            return AttemptFailure(kind: .final, error: AssetPackError(.network, "the server answered \(text)", path: path))
        }
    }
}
