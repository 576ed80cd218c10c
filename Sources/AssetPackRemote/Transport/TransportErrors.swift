import AssetPack
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How URLSession's errors become `AssetPackError`s, classified as ``HTTPTransport`` documents.
enum TransportErrors {
    /// `error` from a task for `url`: retryable ones as `io`, TLS trust as `verification`, bad URLs as
    /// `invalidArgument`, cancellation as `cancelled`.
    static func map(_ error: Error, url: URL) -> AssetPackError {
        let path = url.absoluteString
        guard let urlError = error as? URLError else {
            return AssetPackError(.io, "request failed: \(error.localizedDescription)", path: path)
        }
        switch urlError.code {
        case .cancelled:
            return AssetPackError(.cancelled, "cancelled", path: path)
        case .serverCertificateUntrusted, .serverCertificateHasBadDate, .serverCertificateNotYetValid,
             .serverCertificateHasUnknownRoot, .clientCertificateRejected, .clientCertificateRequired,
             .secureConnectionFailed:
            return AssetPackError(.verification, "TLS: the server is not trusted (\(describe(urlError)))", path: path)
        case .badURL, .unsupportedURL:
            return AssetPackError(.invalidArgument, "not a URL this client can fetch (\(describe(urlError)))", path: path)
        default:
            return AssetPackError(.io, describe(urlError), path: path)
        }
    }

    /// A short reason for a URL error: ours for the common codes, URLSession's text otherwise.
    static func describe(_ error: URLError) -> String {
        switch error.code {
        case .timedOut: "timed out"
        case .cannotConnectToHost: "cannot connect to the host (connection refused)"
        case .cannotFindHost, .dnsLookupFailed: "cannot resolve the host name"
        case .networkConnectionLost: "the connection was lost"
        case .notConnectedToInternet: "not connected to a network"
        case _ where error.localizedDescription.contains("wrong version number"):
            "the server does not speak TLS (an https:// address of a plain HTTP server?)"
        default: "\(error.localizedDescription) (URLError \(error.code.rawValue))"
        }
    }

    /// `1.5 s`, `250 ms`.
    static func seconds(_ duration: Duration) -> String {
        let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        return milliseconds < 1000 ? "\(milliseconds) ms" : String(format: "%.1f s", Double(milliseconds) / 1000)
    }

    /// The retryable `timed out: no WHAT within N s` of a wait for `what` from `url`.
    static func timedOut(_ what: String, within timeout: Duration, url: URL) -> AssetPackError {
        AssetPackError(.io, "timed out: no \(what) within \(seconds(timeout))", path: url.absoluteString)
    }
}
