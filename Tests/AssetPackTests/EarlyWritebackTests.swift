@testable import AssetPack
import AssetPackSystem
import Foundation
import Testing

/// The helper that flushes while a durable expansion writes: it flushes while the body runs, never
/// after it returned or threw, and an expansion that does not flush through `syncfs` has no helper.
@Suite struct EarlyWritebackTests {
    /// Counts the helper's flushes, and whether one came after the body ended.
    final class Flushes: @unchecked Sendable {
        private let monitor = Monitor()
        private var count = 0
        private var afterEnd = false
        private var ended = false

        func flush() { monitor.withLock { count += 1; afterEnd = afterEnd || ended } }
        func end() { monitor.withLock { ended = true } }
        var result: (count: Int, afterEnd: Bool) { monitor.withLock { (count, afterEnd) } }
    }

    @Test func theHelperFlushesWhileTheBodyRunsAndStopsWithIt() throws {
        let flushes = Flushes()
        let value = try EarlyWriteback.overlapping(every: 5_000_000, flush: flushes.flush) { () throws(AssetPackError) -> Int in
            usleep(200_000)
            return 7
        }
        flushes.end()
        usleep(50_000)
        #expect(value == 7)
        #expect(flushes.result.count >= 3)  // about 40 in 200 ms; 3 even on a loaded machine
        #expect(!flushes.result.afterEnd)
    }

    @Test func aFailingBodyStopsTheHelperAndItsErrorComesThrough() {
        let flushes = Flushes()
        let error = #expect(throws: AssetPackError.self) {
            try EarlyWriteback.overlapping(every: 5_000_000, flush: flushes.flush) { () throws(AssetPackError) in
                usleep(30_000)
                throw AssetPackError(.io, "disk full", path: "x")
            }
        }
        flushes.end()
        usleep(50_000)
        #expect(error?.message == "disk full")
        #expect(!flushes.result.afterEnd)
    }

    @Test func withoutDurabilityTheBodyRunsAlone() throws {
        let folder = try Descriptor.directory(NSTemporaryDirectory())
        let ran = try EarlyWriteback.around(folder, files: 10, durable: false) { () throws(AssetPackError) in true }
        #expect(ran)
    }
}
