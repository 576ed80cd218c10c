import AssetPackSystem

/// Hands each window of a windowed install from the thread that reads and plans the manifest to a writer
/// thread, so that the next window is planned while this one is written. ``put(_:)`` returns once the
/// window before it is written: two windows are in hand at a time.
///
/// The writer thread (``drain()``) is never needed: a window it has not taken by the time the next one comes
/// is written by the planning thread itself (so an install goes on when the system refuses the thread). The
/// first failure of a write is thrown by every later call; no window is written after it.
final class WindowHandoff<Window>: @unchecked Sendable {
    private let monitor = Monitor()
    private let write: (Window) throws(AssetPackError) -> Void
    /// Guarded by ``monitor``: the window waiting to be written, whether one is being written, the first
    /// failure, and whether the planning thread is done.
    private var waiting: Window?
    private var writing = false
    private var failure: AssetPackError?
    private var closed = false

    /// A handoff whose windows are written by `write`.
    init(write: @escaping (Window) throws(AssetPackError) -> Void) { self.write = write }

    /// Hands `window` on to be written, once the previous one is written (or writes that one here first,
    /// when the writer thread has not taken it); throws the first failure of a write.
    func put(_ window: Window) throws(AssetPackError) {
        while let untaken = try claimOrPublish(window) { try writeHere(untaken) }
    }

    /// Writes what is left (here, if the writer thread has not taken it), waits for the writer, and stops it;
    /// throws the first failure of a write.
    func finish() throws(AssetPackError) {
        while let untaken = try claimOrPublish(nil) { try writeHere(untaken) }
        try monitor.withLock { () throws(AssetPackError) in
            closed = true
            monitor.broadcast()
            if let failure { throw failure }
        }
    }

    /// Stops the writer thread without writing what waits (after a failure of the planning thread).
    func close() {
        monitor.withLock {
            closed = true
            waiting = nil
            monitor.broadcast()
        }
    }

    /// The writer thread: writes each window handed on, until closed.
    func drain() {
        while let window = take() { run(window) }
    }

    private func take() -> Window? {
        monitor.withLock {
            while waiting == nil && !closed { monitor.wait() }
            guard let window = waiting, failure == nil else { return nil }
            waiting = nil
            writing = true
            return window
        }
    }

    /// Once no window is being written: the window waiting untaken, claimed for this thread to write;
    /// else nil, with `window` (when given) published for the writer thread. Windows are written one at a
    /// time, in order: a window's files go into folders the windows before it made.
    private func claimOrPublish(_ window: Window?) throws(AssetPackError) -> Window? {
        try monitor.withLock { () throws(AssetPackError) -> Window? in
            while writing && failure == nil { monitor.wait() }
            if let failure { throw failure }
            if let untaken = waiting {
                waiting = nil
                writing = true
                return untaken
            }
            if let window {
                waiting = window
                monitor.broadcast()
            }
            return nil
        }
    }

    /// Writes a window claimed by ``claimOrPublish(_:)`` on this thread; throws its failure.
    private func writeHere(_ window: Window) throws(AssetPackError) {
        run(window)
        if let failure = monitor.withLock({ failure }) { throw failure }
    }

    /// Writes `window`, records a failure, and wakes whoever waits for the write to end.
    private func run(_ window: Window) {
        var failed: AssetPackError?
        do throws(AssetPackError) { try write(window) } catch { failed = error }
        monitor.withLock {
            if failure == nil { failure = failed }
            writing = false
            monitor.broadcast()
        }
    }
}
