import AssetPack
import Foundation

/// Why one request did not finish its item, and what the fetch does about it.
struct AttemptFailure: Error {
    enum Kind {
        /// Try again after a delay (connection, timeout, 5xx, short body); `Retry-After` when the server sent one.
        case transient(retryAfter: Duration?)
        /// The resource is not what the item expects (changed on the server, shorter): start the item over.
        case changed
        /// No point trying again (404, 403, refused redirect, a sink that cannot write, cancellation).
        case final
    }

    var kind: Kind
    var error: AssetPackError

    static func transient(_ error: AssetPackError, retryAfter: Duration? = nil) -> AttemptFailure {
        AttemptFailure(kind: .transient(retryAfter: retryAfter), error: error)
    }

    /// A transport error, classified as ``HTTPTransport`` documents: `io` is worth another try.
    static func transport(_ error: AssetPackError) -> AttemptFailure {
        AttemptFailure(kind: error.code == .io ? .transient(retryAfter: nil) : .final, error: error)
    }
}

/// Counts one fetch's failures against its ``RetryPolicy`` and sleeps between tries, until cancelled.
struct RetryBudget {
    let policy: RetryPolicy
    let url: URL
    let started = ContinuousClock.now
    /// Requests made so far.
    var requests = 0
    private var failures = 0
    private var mismatches = 0

    init(_ policy: RetryPolicy, url: URL) {
        self.policy = policy
        self.url = url
    }

    /// After a retryable failure: sleeps before the next try, or throws `error` (noting the tries) when the
    /// policy is spent. A failure after some progress counts as the first of a new run.
    mutating func wait(after error: AssetPackError, retryAfter: Duration?, progressed: Bool,
                       cancellation: ExpansionCancellation) throws(AssetPackError) {
        failures = progressed ? 1 : failures + 1
        guard failures < policy.maxAttempts else { throw givingUp(error) }
        let backoff = policy.delay(afterFailures: failures, jitter: Double.random(in: 0.5...1))
        let delay = max(backoff, min(retryAfter ?? .zero, policy.maxDelay))
        guard ContinuousClock.now + delay - started <= policy.maxDuration else { throw givingUp(error) }
        try ByteRate.pause(until: ContinuousClock.now + delay, cancellation: cancellation, url: url)
    }

    /// After content that did not match (hash, or a changed file): returns when it may be fetched again,
    /// throws `error` when ``RetryPolicy/maxMismatches`` refetches are spent.
    mutating func refetch(after error: AssetPackError) throws(AssetPackError) {
        mismatches += 1
        guard mismatches <= policy.maxMismatches else { throw givingUp(error) }
    }

    /// `error` as the fetch ends with it: the tries noted, and a failure of the network or the server
    /// (`io` while retrying) reported as `AssetPackError/Code/network`.
    private func givingUp(_ error: AssetPackError) -> AssetPackError {
        var error = error
        if error.code == .io { error.code = .network }
        let elapsed = TransportErrors.seconds(ContinuousClock.now - started)
        error.message += " (gave up after \(requests) request\(requests == 1 ? "" : "s") in \(elapsed))"
        return error
    }
}
