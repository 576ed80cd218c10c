import AssetPack
import AssetPackZip
import Foundation
import Testing
import TestSupport

@Suite struct InstallConcurrencyTests {
    @Test func concurrentCallsOnOneDestinationExpandOnce() throws {
        let scratch = try TemporaryDirectory("concurrent")
        try ExpansionFixtures.bundle(.standard, packed: ["big.bin": .deflate], at: scratch.file("bundle"), scratch: scratch)
        let destination = scratch.file("assets")
        let outcomes = ResultBox()
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            do {
                let installer = try AssetInstaller(source: DirectorySource(root: scratch.file("bundle")), destination: destination)
                outcomes.add(.success(try installer.installSynchronously()))
            } catch {
                outcomes.add(.failure(error))
            }
        }
        let results = outcomes.all.compactMap { try? $0.get() }
        #expect(results.count == 4)
        #expect(results.filter { !$0.upToDate }.count == 1)
        #expect(DiskTree.read(destination) == DiskTree(.standard))
        #expect(hiddenNames(scratch.path) == [])
    }

    @Test func parallelJobsWriteTheSameTree() throws {
        let scratch = try TemporaryDirectory("jobs")
        try ExpansionFixtures.bundle(.standard, packed: ["big.bin": .deflate, "nested/y.txt": .deflate],
                                     at: scratch.file("bundle"), scratch: scratch)
        for jobs in [1, 2, 4] {
            let destination = scratch.file("assets-\(jobs)")
            try AssetInstaller(source: DirectorySource(root: scratch.file("bundle")), destination: destination,
                               options: ExpansionOptions(jobs: jobs)).installSynchronously()
            #expect(DiskTree.read(destination) == DiskTree(.standard))
        }
    }
}

final class ResultBox: @unchecked Sendable {
    private let lock = NSLock()
    private var results: [Result<ExpansionResult, any Error>] = []
    func add(_ result: Result<ExpansionResult, any Error>) { lock.lock(); results.append(result); lock.unlock() }
    var all: [Result<ExpansionResult, any Error>] { lock.lock(); defer { lock.unlock() }; return results }
}
