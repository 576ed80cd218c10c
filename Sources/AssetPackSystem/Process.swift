/// The running process: its id, environment, signals, exit, standard error.
package enum CurrentProcess {
    /// The process id (`getpid(2)`).
    package static var id: Int32 { system_getpid() }

    /// True when a process `pid` exists (`kill(pid, 0)`), whoever runs it.
    package static func exists(_ pid: Int32) -> Bool { pid > 0 && system_processExists(pid) }

    /// The environment variable `name` (`getenv(3)`: cheap, unlike building the whole environment).
    package static func environment(_ name: String) -> String? {
        system_getenv(name).map { String(cString: $0) }
    }

    /// How many descriptors the process may hold at once (the soft `RLIMIT_NOFILE`, `ulimit -n`); nil when
    /// unknown or unlimited.
    package static var openFileLimit: UInt64? { system_openFileLimit() }

    /// True when standard error is a terminal (`isatty(3)`).
    package static var standardErrorIsTerminal: Bool { isTerminal(2) }

    /// The width of the terminal standard error is, as curl and rsync read it: its size (`TIOCGWINSZ`), else
    /// `$COLUMNS`, else 80.
    package static var standardErrorColumns: Int {
        system_terminalColumns(2) ?? environment("COLUMNS").flatMap { Int($0) }.flatMap { $0 > 0 ? $0 : nil } ?? 80
    }

    /// True when `descriptor` is a terminal (`isatty(3)`).
    package static func isTerminal(_ descriptor: Int32) -> Bool { system_isatty(descriptor) == 1 }

    /// Writes `bytes` to standard error (`write(2)` until done; errors are ignored: there is nowhere to say so).
    package static func writeToStandardError(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { raw in try? FileDescriptor(rawValue: 2).writeAll(raw, path: nil) }
    }

    /// Ends the process with `code` (`exit(3)`).
    package static func exit(_ code: Int32) -> Never { system_exit(code) }

    /// Kills the process with `SIGKILL` at once, as a crash or the system would (for crash tests).
    package static func killImmediately() { _ = system_killSelf() }

    /// Ignores `SIGXFSZ`: a write past the file-size limit (`ulimit -f`) then fails with `EFBIG` like any
    /// other write error, instead of killing the process.
    package static func ignoreFileSizeLimitSignal() { system_ignoreSIGXFSZ() }

    /// On Glibc, keeps the heap of a long run on many threads small: allocations from `mapThreshold` bytes get
    /// their own mapping (`M_MMAP_THRESHOLD`, which Glibc otherwise raises), and the threads share `arenas` arenas
    /// (`M_ARENA_MAX`; Glibc's default of eight per core does not reuse across arenas). Nothing elsewhere.
    package static func boundMallocHeap(mapThreshold: Int32, arenas: Int) {
        #if os(Linux)
        _ = LinuxExtras.mallopt?(_M_MMAP_THRESHOLD, mapThreshold)
        _ = LinuxExtras.mallopt?(_M_ARENA_MAX, Int32(clamping: max(1, arenas)))
        #endif
    }
}

/// Clocks.
package enum SystemClock {
    /// Seconds of a monotonic clock (`clock_gettime(CLOCK_MONOTONIC)`), for durations.
    package static func monotonicSeconds() -> Double { system_monotonicSeconds() }

    /// The current Unix time in seconds (`time(3)`).
    package static func unixTime() -> Int64 { system_time() }
}

/// Raw memory.
package enum Memory {
    /// True when the `count` bytes at `left` and `right` are equal (`memcmp(3)`).
    @inlinable package static func equal(_ left: UnsafeRawPointer, _ right: UnsafeRawPointer, count: Int) -> Bool {
        system_memcmp(left, right, count) == 0
    }

    /// True when `left` and `right` have the same UTF-8 bytes. Swift's `==` on strings also equates canonically
    /// equivalent spellings (`é` precomposed and `e` + combining accent), which are two different names to a
    /// file system or a zip archive.
    package static func sameBytes(_ left: String, _ right: String) -> Bool {
        sameBytes(left, right[...])
    }

    /// True when `left`'s UTF-8 bytes sort before `right`'s (`memcmp(3)` over the shorter length, then the
    /// shorter first): the byte order of paths in manifests and records, without `String`'s generic comparison.
    package static func bytesPrecede(_ left: String, _ right: String) -> Bool {
        let result = left.utf8.withContiguousStorageIfAvailable { a in
            right.utf8.withContiguousStorageIfAvailable { b in
                let order = min(a.count, b.count) == 0 ? 0 : system_memcmp(a.baseAddress!, b.baseAddress!, min(a.count, b.count))
                return order != 0 ? order < 0 : a.count < b.count
            }
        }
        return result.flatMap { $0 } ?? left.utf8.lexicographicallyPrecedes(right.utf8)
    }

    /// True when a string and a substring have the same UTF-8 bytes (see the pair of strings).
    package static func sameBytes(_ left: String, _ right: Substring) -> Bool {
        guard left.utf8.count == right.utf8.count else { return false }
        let same = left.utf8.withContiguousStorageIfAvailable { a in
            right.utf8.withContiguousStorageIfAvailable { b in
                a.isEmpty || equal(a.baseAddress!, b.baseAddress!, count: a.count)
            }
        }
        return same.flatMap { $0 } ?? left.utf8.elementsEqual(right.utf8)
    }
}
