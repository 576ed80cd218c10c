import Dispatch

/// Ctrl-C (`SIGINT`) as an event instead of the end of the process: a command that is writing can then
/// stop at a safe point, clear its progress line and say how to resume.
package enum InterruptSignal {
    /// The dispatch source, kept for the life of the process.
    nonisolated(unsafe) private static var source: (any DispatchSourceSignal)?

    /// From now on, each `SIGINT` calls `handler` on a background queue instead of ending the process
    /// (`signal(3)` to ignore it, then a dispatch source). Call once.
    package static func handle(_ handler: @escaping @Sendable () -> Void) {
        system_ignoreSIGINT()
        let source = DispatchSource.makeSignalSource(signal: system_SIGINT, queue: .global())
        source.setEventHandler(handler: handler)
        source.resume()
        self.source = source
    }

    /// Sends `SIGINT` to this process, as Ctrl-C does (`kill(2)`), for end-to-end tests of the handler.
    package static func raise() { _ = system_interruptSelf() }
}
