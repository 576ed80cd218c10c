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
        let parts = interval.components
        return InstallStatusUpdates(installer: self, interval: Double(parts.seconds) + Double(parts.attoseconds) / 1e18)
    }
}

/// The steps of one install, as ``AssetInstaller/statusUpdates(every:)`` reports them. Iterating it runs
/// the install; iterate it once.
public struct InstallStatusUpdates: AsyncSequence, Sendable {
    public typealias Element = InstallUpdate

    let installer: AssetInstaller
    /// Seconds between two writing reports.
    let interval: Double

    /// Starts nothing yet: the install starts at the first call of ``AsyncIterator/next()``.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(consumer: StatusConsumer(StatusRun(installer: installer, interval: interval)))
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

/// One install feeding statuses to one consumer: the install thread puts them in a queue (writing reports
/// throttled and coalesced), ``next()`` takes them out, waiting when there is none.
final class StatusRun: @unchecked Sendable {
    /// Statuses queued before writing counts are coalesced.
    static let queueLimit = 32

    let cancellation = ExpansionCancellation()
    private let installer: AssetInstaller
    private let interval: Double
    private let monitor = Monitor()
    // Guarded by `monitor`:
    private var started = false
    private var queue: [InstallUpdate] = []
    private var end: Result<Void, AssetPackError>?
    private var waiter: CheckedContinuation<Result<InstallUpdate?, AssetPackError>, Never>?
    private var lastPhase: InstallUpdate?
    private var lastWritingSent = -Double.infinity
    private var pendingWriting: InstallUpdate?

    init(installer: AssetInstaller, interval: Double) {
        self.installer = installer
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
                let result = try installer.installSynchronously(progress: { [self] in receive($0) }, cancellation: cancellation)
                finish(.success(result))
            } catch {
                finish(.failure(error))
            }
        }
    }

    /// A progress report from the install: a new step is queued at once (after the last writing counts
    /// not yet sent), writing counts at most once per interval.
    private func receive(_ progress: ExpansionProgress) {
        guard let status = InstallUpdate(progress) else { return }
        monitor.withLock {
            if status.isWriting {
                let now = SystemClock.monotonicSeconds()
                guard now - lastWritingSent >= interval else {
                    pendingWriting = status
                    return
                }
                lastWritingSent = now
                pendingWriting = nil
                deliver(status)
            } else if status != lastPhase {
                lastPhase = status
                sendPendingWriting()
                deliver(status)
            }
        }
    }

    private func finish(_ outcome: Result<ExpansionResult, AssetPackError>) {
        monitor.withLock {
            switch outcome {
            case .success(let result):
                sendPendingWriting()
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
    private func sendPendingWriting() {
        if let pendingWriting { deliver(pendingWriting) }
        pendingWriting = nil
    }

    /// Hands `status` to a waiting consumer, or queues it. Past ``queueLimit`` statuses not taken yet,
    /// new writing counts replace the last ones, so a slow consumer never makes the queue grow. Under the lock.
    private func deliver(_ status: InstallUpdate) {
        if let waiter {
            self.waiter = nil
            waiter.resume(returning: .success(status))
        } else if status.isWriting, queue.count >= Self.queueLimit, queue.last?.isWriting == true {
            queue[queue.count - 1] = status
        } else {
            queue.append(status)
        }
    }
}
