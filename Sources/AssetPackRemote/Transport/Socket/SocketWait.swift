import AssetPack
import AssetPackSystem
import Foundation

/// How the socket client waits for a socket: `poll(2)` on the calling thread in slices of at most ``slice``
/// ms, so a wait notices its deadline, the fetch's cancellation and a cancelled body within a slice.
struct SocketWait {
    /// The longest `poll` between two checks.
    static let slice: Int32 = 20
    /// The URL, for messages.
    let url: URL
    /// When to give up.
    let deadline: ContinuousClock.Instant
    /// The request's timeout, for the message.
    let timeout: Duration
    /// What a timeout waited for (`response`, `further bytes of the body`, `connection`).
    let what: String
    /// Set when the fetch is cancelled: the wait ends with `AssetPackError/Code/cancelled`.
    let cancellation: ExpansionCancellation
    /// True when the reader gave up (a cancelled body): the wait ends with `AssetPackError/Code/cancelled`.
    let isAbandoned: @Sendable () -> Bool

    /// A wait of at most `timeout` from now.
    init(_ url: URL, timeout: Duration, for what: String, cancellation: ExpansionCancellation,
         isAbandoned: @escaping @Sendable () -> Bool = { false }) {
        self.url = url
        self.timeout = timeout
        self.what = what
        self.cancellation = cancellation
        self.isAbandoned = isAbandoned
        deadline = .now + timeout
    }

    /// Returns once `socket` is ready; throws a timeout (`io`) or `cancelled`. The deadline is judged only by a
    /// `poll` made at or after it: a thread that was not scheduled for a while still finds what arrived meanwhile.
    func until(_ socket: StreamSocket, is readiness: StreamSocket.Readiness) throws(AssetPackError) {
        while true {
            if cancellation.isCancelled || isAbandoned() {
                throw AssetPackError(.cancelled, "cancelled", path: url.absoluteString)
            }
            let left = deadline - .now
            let milliseconds = max(0, left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1)
            do {
                if try socket.wait(for: readiness, milliseconds: Int32(min(Int64(Self.slice), milliseconds))) { return }
            } catch {
                throw SocketFailure.error(error, url: url)
            }
            if left <= .zero { throw TransportErrors.timedOut(what, within: timeout, url: url) }
        }
    }
}

/// The socket client's failures as `AssetPackError`s, classified as ``HTTPTransport`` documents.
enum SocketFailure {
    /// A failed system call on the connection to `url`: retryable (`io`), with the call and errno as its cause.
    static func error(_ error: SystemError, url: URL) -> AssetPackError {
        AssetPackError(.io, "\(error.reason) (\(error.call) to \(error.path ?? "the server"))", path: url.absoluteString,
                       cause: .system(call: error.call, errno: error.errno.rawValue))
    }

    /// A response that breaks HTTP/1.1 framing: retryable, since bytes damaged on the way look the same.
    static func protocolError(_ reason: String, url: URL) -> AssetPackError {
        AssetPackError(.io, "not a valid HTTP/1.1 response: \(reason)", path: url.absoluteString)
    }

    /// The connection ended (`what` tells where).
    static func closed(_ what: String, url: URL) -> AssetPackError {
        AssetPackError(.io, "the connection was closed by the server \(what)", path: url.absoluteString)
    }
}
