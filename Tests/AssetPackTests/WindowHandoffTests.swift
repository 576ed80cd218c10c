@testable import AssetPack
import AssetPackSystem
import Foundation
import Testing

/// ``WindowHandoff``: windows are written one at a time, in order, on the writer thread or (when it never
/// runs) on the planning thread; the first failure stops the rest and is thrown.
@Suite struct WindowHandoffTests {
    /// What the writes saw: the order, and the most writes at once.
    final class Log: @unchecked Sendable {
        private let lock = NSLock()
        private var running = 0
        private(set) var written: [Int] = []
        private(set) var mostAtOnce = 0
        func begin(_ window: Int) {
            lock.withLock {
                running += 1
                mostAtOnce = max(mostAtOnce, running)
                written.append(window)
            }
        }
        func end() { lock.withLock { running -= 1 } }
    }

    static func handoff(_ log: Log, failing: Int? = nil) -> WindowHandoff<Int> {
        WindowHandoff<Int> { (window) throws(AssetPackError) in
            log.begin(window)
            defer { log.end() }
            usleep(UInt32(window % 3) * 500)  // writes of different lengths
            if window == failing { throw AssetPackError(.io, "window \(window) failed") }
        }
    }

    @Test(arguments: [true, false])
    func windowsAreWrittenOneAtATimeInOrder(withWriterThread: Bool) throws {
        let log = Log()
        let handoff = Self.handoff(log)
        try WorkerThreads.withHelpers(withWriterThread ? 1 : 0, helper: { _ in handoff.drain() }) { () throws(AssetPackError) in
            defer { handoff.close() }
            for window in 0..<50 { try handoff.put(window) }
            try handoff.finish()
        }
        #expect(log.written == Array(0..<50))
        #expect(log.mostAtOnce == 1)
    }

    @Test func theFirstFailureStopsTheRestAndIsThrown() {
        let log = Log()
        let handoff = Self.handoff(log, failing: 7)
        let error = #expect(throws: AssetPackError.self) {
            try WorkerThreads.withHelpers(1, helper: { _ in handoff.drain() }) { () throws(AssetPackError) in
                defer { handoff.close() }
                for window in 0..<50 { try handoff.put(window) }
                try handoff.finish()
            }
        }
        #expect(error?.message == "window 7 failed")
        #expect(log.written == Array(0...7))
    }
}
