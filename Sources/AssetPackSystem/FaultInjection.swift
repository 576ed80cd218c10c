/// The platform layer's one test seam: makes chosen system calls (``systemCall(_:_:retryOnInterrupt:_:)``) fail
/// with a chosen errno under a folder only that test uses, so tests can play a full disk or a read-only file
/// system without root. While no fault is installed the check is one load of a flag per call.
package enum FaultInjection {
    /// Calls to fail: `call` on any path that starts with `pathPrefix` and ends with `pathSuffix`.
    package struct Fault: Hashable, Sendable {
        /// The call's name as in messages (`"write"`).
        package var call: String
        /// What the call fails with.
        package var errno: Errno
        /// Only paths starting with this fail: a folder unique to the test.
        package var pathPrefix: String
        /// Only paths ending with this fail ("" for any).
        package var pathSuffix: String

        package init(_ call: String, fails errno: Errno, under pathPrefix: String, endingWith pathSuffix: String = "") {
            self.call = call
            self.errno = errno
            self.pathPrefix = pathPrefix
            self.pathSuffix = pathSuffix
        }
    }

    /// Runs `body` with `fault` installed, and removes it afterwards.
    package static func with<T>(_ fault: Fault, _ body: () throws -> T) rethrows -> T {
        install(fault)
        defer { remove(fault) }
        return try body()
    }

    /// Installs `fault` until ``remove(_:)``.
    package static func install(_ fault: Fault) {
        table.update { $0.append(fault) }
    }

    /// Removes `fault` (one installation of it).
    package static func remove(_ fault: Fault) {
        table.update { faults in
            if let index = faults.firstIndex(of: fault) { faults.remove(at: index) }
        }
    }

    /// True while any fault is installed: read without the lock on every call (a fault is installed before
    /// the code it is meant for runs, on the same thread or before that thread starts).
    nonisolated(unsafe) static var isArmed = false

    /// The errno an installed fault gives `call` on `path`, or nil.
    static func injectedErrno(for call: StaticString, path: String?) -> Errno? {
        guard let path else { return nil }
        let name = "\(call)"
        return table.read { faults in
            faults.first { $0.call == name && path.hasPrefix($0.pathPrefix) && path.hasSuffix($0.pathSuffix) }?.errno
        }
    }

    private static let table = FaultTable()
}

/// The installed faults, behind a lock.
private final class FaultTable: @unchecked Sendable {
    private let monitor = Monitor()
    private var faults: [FaultInjection.Fault] = []

    func update(_ change: (inout [FaultInjection.Fault]) -> Void) {
        monitor.withLock {
            change(&faults)
            FaultInjection.isArmed = !faults.isEmpty
        }
    }

    func read<T>(_ body: ([FaultInjection.Fault]) -> T) -> T {
        monitor.withLock { body(faults) }
    }
}
