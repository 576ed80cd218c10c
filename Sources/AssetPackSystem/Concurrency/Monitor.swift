#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A mutex with one condition variable (pthreads): the one lock type of the package's parallel parts (the
/// object pool, the worker runners, progress counting). Every field a monitor guards is read and written
/// only inside ``withLock(_:)``.
package final class Monitor: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    package init() {
        mutex = .allocate(capacity: 1)
        condition = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Runs `body` holding the lock.
    package func withLock<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Releases the lock until another thread calls ``broadcast()``, then takes it again. Only inside
    /// ``withLock(_:)``; wake-ups may be spurious, so callers wait in a loop over their condition.
    package func wait() {
        pthread_cond_wait(condition, mutex)
    }

    /// As ``wait()``, but for at most `nanoseconds`.
    package func wait(nanoseconds: UInt64) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let total = UInt64(now.tv_nsec) + nanoseconds % 1_000_000_000
        var deadline = timespec()
        deadline.tv_sec = now.tv_sec + Int(nanoseconds / 1_000_000_000) + Int(total / 1_000_000_000)
        deadline.tv_nsec = Int(total % 1_000_000_000)
        pthread_cond_timedwait(condition, mutex, &deadline)
    }

    /// Wakes every thread in ``wait()``.
    package func broadcast() {
        pthread_cond_broadcast(condition)
    }
}
