import AssetPackSystem
import AssetPackZip

extension AssetInstaller {
    /// Installs while the returned sequence is iterated, and reports each step: ``InstallUpdate/planning``,
    /// ``InstallUpdate/writing(_:)`` at most once per `interval` (and always the last counts, with every
    /// byte done), ``InstallUpdate/flushing``, ``InstallUpdate/switching``, and finally
    /// ``InstallUpdate/done(_:)`` with the result. A failure is thrown by the loop, as an
    /// ``AssetPackError``; so is cancellation, with ``AssetPackError/Code/cancelled``.
    ///
    /// ```swift
    /// for try await status in installer.statusUpdates() {
    ///     switch status {
    ///     case .writing(let counts): bar.fraction = counts.fractionCompleted
    ///     case .done(let result): print(result.upToDate ? "up to date" : "installed")
    ///     default: break
    ///     }
    /// }
    /// ```
    ///
    /// The install starts at the first iteration, on a thread of its own. Cancelling the iterating task or
    /// leaving the loop early stops it at the next file or buffer (the next install resumes); the loop then
    /// throws once the install has stopped. Iterate a sequence once.
    /// - Parameter interval: the least time between two ``InstallUpdate/writing(_:)`` reports (default a
    ///   quarter of a second); the other steps are reported as they happen.
    public func statusUpdates(every interval: Duration = .milliseconds(250)) -> InstallStatusUpdates {
        InstallStatusUpdates(every: interval) { (report, cancellation) throws(AssetPackError) in
            try installSynchronously(progress: { if let status = InstallUpdate($0) { report(status) } }, cancellation: cancellation)
        }
    }
}

/// The steps of one install, local (``AssetInstaller/statusUpdates(every:)``) or from a server
/// (`AssetPackRemote`'s `RemoteBundle.statusUpdates`). Iterating it runs the install; iterate it once.
public struct InstallStatusUpdates: AsyncSequence, Sendable {
    public typealias Element = InstallUpdate
    /// Runs one install on the calling thread until it ends or `cancellation` is set, telling `report` each
    /// status as it happens (the sequence throttles the counts).
    package typealias Install = @Sendable (_ report: @escaping @Sendable (InstallUpdate) -> Void,
                                           _ cancellation: ExpansionCancellation) throws(AssetPackError) -> ExpansionResult

    let install: Install
    /// Seconds between two reports of the same counts.
    let interval: Double

    /// The statuses of `install`, counts reported at most once per `interval`.
    package init(every interval: Duration, install: @escaping Install) {
        let parts = interval.components
        self.interval = Double(parts.seconds) + Double(parts.attoseconds) / 1e18
        self.install = install
    }

    /// Starts nothing yet: the install starts at the first call of ``AsyncIterator/next()``.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(consumer: StatusConsumer(StatusRun(install: install, interval: interval)))
    }

    /// Gives the statuses of the install in order; ends after ``InstallUpdate/done(_:)`` or an error.
    public struct AsyncIterator: AsyncIteratorProtocol, Sendable {
        let consumer: StatusConsumer

        /// The next status; nil after ``InstallUpdate/done(_:)``.
        /// - Throws: the install's ``AssetPackError`` (``AssetPackError/Code/cancelled`` when the task was
        ///   cancelled), once the install has stopped.
        public mutating func next() async throws(AssetPackError) -> InstallUpdate? {
            try await consumer.run.next()
        }
    }
}

/// The iterator's hold on a run: when the iterator goes away before the run ended (a loop left early),
/// the install is cancelled.
final class StatusConsumer: Sendable {
    let run: StatusRun
    init(_ run: StatusRun) { self.run = run }
    deinit { run.cancellation.cancel() }
}

/// One install feeding statuses to one consumer: the install thread puts them in a queue (writing and
/// downloading counts throttled and coalesced), ``next()`` takes them out, waiting when there is none.
final class StatusRun: @unchecked Sendable {
    /// Statuses queued before writing counts are coalesced.
    static let queueLimit = 32

    let cancellation = ExpansionCancellation()
    private let install: InstallStatusUpdates.Install
    private let interval: Double
    private let monitor = Monitor()
    // Guarded by `monitor`:
    private var started = false
    private var queue: [InstallUpdate] = []
    private var end: Result<Void, AssetPackError>?
    private var waiter: CheckedContinuation<Result<InstallUpdate?, AssetPackError>, Never>?
    private var lastPhase: InstallUpdate?
    /// By ``InstallUpdate/countsKind``: when counts of that kind were last sent, and the latest not sent yet.
    private var lastCountsSent = [-Double.infinity, -Double.infinity]
    private var pendingCounts: [InstallUpdate?] = [nil, nil]

    init(install: @escaping InstallStatusUpdates.Install, interval: Double) {
        self.install = install
        self.interval = interval
    }

    /// The next status, nil at the end; starts the install on the first call.
    func next() async throws(AssetPackError) -> InstallUpdate? {
        startOnce()
        let outcome = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                monitor.withLock {
                    if let ready = take() { continuation.resume(returning: ready) } else { waiter = continuation }
                }
            }
        } onCancel: {
            cancellation.cancel()
        }
        return try outcome.get()
    }

    /// What the consumer gets now, or nil when it must wait. Called under the lock.
    private func take() -> Result<InstallUpdate?, AssetPackError>? {
        if !queue.isEmpty { return .success(queue.removeFirst()) }
        guard let end else { return nil }
        self.end = .success(())  // an error is thrown once; later calls end the loop
        return end.map { nil }
    }

    private func startOnce() {
        let first = monitor.withLock {
            defer { started = true }
            return !started
        }
        guard first else { return }
        InstallThread.start { [self] in
            do throws(AssetPackError) {
                let result = try install({ [self] in receive($0) }, cancellation)
                finish(.success(result))
            } catch {
                finish(.failure(error))
            }
        }
    }

    /// A status from the install: a new step is queued at once (after the last counts not yet sent), counts of
    /// each kind at most once per interval.
    private func receive(_ status: InstallUpdate) {
        monitor.withLock {
            if let kind = status.countsKind {
                let now = SystemClock.monotonicSeconds()
                guard now - lastCountsSent[kind] >= interval else {
                    pendingCounts[kind] = status
                    return
                }
                lastCountsSent[kind] = now
                pendingCounts[kind] = nil
                deliver(status)
            } else if status != lastPhase {
                lastPhase = status
                sendPendingCounts()
                deliver(status)
            }
        }
    }

    private func finish(_ outcome: Result<ExpansionResult, AssetPackError>) {
        monitor.withLock {
            switch outcome {
            case .success(let result):
                sendPendingCounts()
                deliver(.done(result))
                end = .success(())
            case .failure(let error):
                end = .failure(error)
            }
            if let waiter, let ready = take() {
                self.waiter = nil
                waiter.resume(returning: ready)
            }
        }
    }

    /// Under the lock.
    private func sendPendingCounts() {
        for case let status? in pendingCounts { deliver(status) }
        pendingCounts = [nil, nil]
    }

    /// Hands `status` to a waiting consumer, or queues it. Past ``queueLimit`` statuses not taken yet,
    /// new counts replace the last ones of their kind, so a slow consumer never makes the queue grow. Under the lock.
    private func deliver(_ status: InstallUpdate) {
        if let waiter {
            self.waiter = nil
            waiter.resume(returning: .success(status))
        } else if let kind = status.countsKind, queue.count >= Self.queueLimit,
                  let last = queue.lastIndex(where: { $0.countsKind == kind }), queue[last...].allSatisfy({ $0.countsKind != nil }) {
            queue[last] = status
        } else {
            queue.append(status)
        }
    }
}
