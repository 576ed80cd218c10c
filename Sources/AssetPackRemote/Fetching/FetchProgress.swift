import AssetPackSystem
import Foundation

/// Byte counts of downloads as they happen, shared by any number of concurrent fetches; safe from any thread.
///
/// - ``Snapshot/received``: body bytes that crossed the network, including those discarded (skipped in a whole-file
///   answer to a range request, or thrown away when a download started over). Only grows.
/// - ``Snapshot/completed``: bytes currently accepted into sinks; it goes back when a download starts over, so at the
///   end it is the sum of the items' lengths.
/// - ``Snapshot/verified``: bytes of items whose SHA-256 checked out.
public final class FetchProgress: @unchecked Sendable {
    /// The counts at one moment.
    public struct Snapshot: Sendable, Equatable {
        /// Body bytes that crossed the network, discarded ones included. Only grows.
        public var received: UInt64 = 0
        /// Bytes currently accepted into sinks.
        public var completed: UInt64 = 0
        /// Bytes of items whose SHA-256 checked out.
        public var verified: UInt64 = 0
        /// Items verified.
        public var items = 0
    }

    private let lock = Monitor()
    private var counts = Snapshot()
    private let handler: (@Sendable (Snapshot) -> Void)?

    /// Counts from zero; `handler`, when given, sees every change, in order (on the fetching thread, under this
    /// object's lock: keep it short, and read the counts it is given, not ``snapshot``).
    public init(handler: (@Sendable (Snapshot) -> Void)? = nil) { self.handler = handler }

    /// The counts now.
    public var snapshot: Snapshot { lock.withLock { counts } }

    func add(received: UInt64, completed: UInt64) { update { $0.received += received; $0.completed += completed } }

    func discard(_ bytes: UInt64) { update { $0.completed -= min(bytes, $0.completed) } }

    func verified(_ bytes: UInt64) { update { $0.verified += bytes; $0.items += 1 } }

    private func update(_ change: (inout Snapshot) -> Void) {
        lock.withLock {
            change(&counts)
            handler?(counts)
        }
    }
}
