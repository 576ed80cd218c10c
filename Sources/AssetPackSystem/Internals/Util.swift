/// swift-system's helper: runs `call` — a C function that returns -1 and sets `errno` on failure — again
/// while it fails with `EINTR` (when `retryOnInterrupt`), and returns its value or its errno. The one place
/// that retries on `EINTR`.
@inline(__always)
internal func valueOrErrno<I: FixedWidthInteger>(retryOnInterrupt: Bool = true, _ call: () -> I) -> Result<I, Errno> {
    while true {
        let value = call()
        if value != -1 { return .success(value) }
        let error = Errno.current
        if !(retryOnInterrupt && error == .interrupted) { return .failure(error) }
    }
}

/// Runs the system call `name` through ``valueOrErrno(retryOnInterrupt:_:)``, after the test seam
/// (``FaultInjection``) had its say, and returns its value or a ``SystemError`` naming the call and `path`
/// (built only when the call fails, so a call that succeeds costs no string).
@inline(__always)
internal func systemCall<I: FixedWidthInteger>(_ name: StaticString, _ path: @autoclosure () -> String?,
                                               retryOnInterrupt: Bool = true, _ call: () -> I) -> Result<I, SystemError> {
    if _slowPath(FaultInjection.isArmed), let injected = FaultInjection.injectedErrno(for: name, path: path()) {
        return .failure(SystemError("\(name)", injected, path: path()))
    }
    switch valueOrErrno(retryOnInterrupt: retryOnInterrupt, call) {
    case .success(let value): return .success(value)
    case .failure(let errno): return .failure(SystemError("\(name)", errno, path: path()))
    }
}

/// ``systemCall(_:_:retryOnInterrupt:_:)`` for a C function that returns a pointer, nil on failure.
@inline(__always)
internal func systemCall<T>(_ name: StaticString, _ path: @autoclosure () -> String?,
                            _ call: () -> T?) -> Result<T, SystemError> {
    if _slowPath(FaultInjection.isArmed), let injected = FaultInjection.injectedErrno(for: name, path: path()) {
        return .failure(SystemError("\(name)", injected, path: path()))
    }
    if let value = call() { return .success(value) }
    return .failure(SystemError("\(name)", .current, path: path()))
}

extension Result where Failure == SystemError {
    /// The value; nil when the call failed with one of the errnos given (e.g. `ENOENT` for "not there").
    func value(orNilFor expected: Errno, _ second: Errno? = nil, _ third: Errno? = nil) throws(SystemError) -> Success? {
        switch self {
        case .success(let value): return value
        case .failure(let error) where error.errno == expected || error.errno == second || error.errno == third: return nil
        case .failure(let error): throw error
        }
    }
}
