import AssetPack
import AssetPackZip
import Foundation
import Testing
import TestSupport

/// The Swift-concurrency faces of an install: the status sequence, a Foundation `Progress`, and task
/// cancellation reaching the install.
@Suite struct InstallUpdateTests {
    /// A tree of 12 small files and one of 200 KB.
    static let tree: AssetTree = {
        var random = SeededRandom(seed: 13)
        var files: [String: [UInt8]] = ["large.bin": random.bytes(200_000)]
        for index in 0..<12 { files["files/f\(index).txt"] = random.text(1_000 + index) }
        return AssetTree(files: files)
    }()

    /// The `open` calls of planning (the walker opens each file once), before the first file is written.
    static let plannedOpens = tree.files.count

    static func folder(_ scratch: TemporaryDirectory) throws -> String {
        try Self.tree.write(to: scratch.file("src"))
        return scratch.file("src")
    }

    /// An installer of the tree into `a` on one thread whose `write`-th file is held until the gate opens.
    static func heldInstaller(_ scratch: TemporaryDirectory, atWrite write: Int) throws -> (AssetInstaller, Gate) {
        let gate = Gate(at: plannedOpens + write)
        let source = GatedSource(DirectorySource(root: try folder(scratch)), gate: gate)
        return (try AssetInstaller(source: source, destination: scratch.file("a"), options: ExpansionOptions(jobs: 1)), gate)
    }

    /// Cancels `task` once its install is held at the gate, lets the install go on, and checks that the
    /// task throws `.cancelled` and that the destination was not made.
    static func cancelWhenHeld<Value>(_ task: Task<Value, any Error>, gate: Gate, destination: String) async {
        await gate.reached()
        task.cancel()
        gate.open()
        let error = await #expect(throws: AssetPackError.self) { try await task.value }
        #expect(error?.code == .cancelled)
        #expect(!FileManager.default.fileExists(atPath: destination))
    }

    @Test func theSequenceReportsEachStepOnceAndTheLastCountsWhenThrottled() async throws {
        let scratch = try TemporaryDirectory("status-steps")
        let installer = try AssetInstaller(source: DirectorySource(root: try Self.folder(scratch)), destination: scratch.file("a"),
                                           options: ExpansionOptions(jobs: 1))
        var statuses: [InstallUpdate] = []
        for try await status in installer.statusUpdates(every: .seconds(3600)) { statuses.append(status) }

        let bytes = Self.tree.files.values.reduce(UInt64(0)) { $0 + UInt64($1.count) }
        let files = Self.tree.files.count
        guard case .done(let result) = statuses.last else {
            Issue.record("no done: \(statuses)")
            return
        }
        #expect(!result.upToDate && result.files == files)
        #expect(statuses == [
            .planning,
            .writing(InstallUpdate.Counts(bytesDone: 0, bytesTotal: bytes, filesDone: 0, filesTotal: files)),
            .writing(InstallUpdate.Counts(bytesDone: bytes, bytesTotal: bytes, filesDone: files, filesTotal: files)),
            .flushing,
            .switching,
            .done(result),
        ])
        #expect(DiskTree.read(scratch.file("a")) == DiskTree(Self.tree))

        // A folder without a manifest is planned (walked) to find it up to date; nothing is written.
        var again: [InstallUpdate] = []
        for try await status in installer.statusUpdates() { again.append(status) }
        guard case .done(let second)? = again.last else {
            Issue.record("no done: \(again)")
            return
        }
        #expect(again.count == 2 && again.first == .planning && second.upToDate)
    }

    @Test func withoutThrottlingEveryCountIsReportedInOrderAndNoFlushWithoutDurability() async throws {
        let scratch = try TemporaryDirectory("status-all")
        let installer = try AssetInstaller(source: DirectorySource(root: try Self.folder(scratch)), destination: scratch.file("a"),
                                           options: ExpansionOptions(jobs: 1, durability: .none))
        var statuses: [InstallUpdate] = []
        for try await status in installer.statusUpdates(every: .zero) { statuses.append(status) }
        let writing = statuses.compactMap { status -> InstallUpdate.Counts? in
            if case .writing(let counts) = status { return counts }
            return nil
        }
        #expect(writing.count == Self.tree.files.count + 1)  // the totals, then once per file
        #expect(writing.map(\.filesDone) == Array(0...Self.tree.files.count))
        #expect(writing.last?.fractionCompleted == 1)
        #expect(!statuses.contains(.flushing))
        #expect(statuses.first == .planning && statuses.dropLast().last == .switching)
    }

    @Test func cancellingTheIteratingTaskThrowsCancelledAndTheNextInstallResumes() async throws {
        let scratch = try TemporaryDirectory("status-cancel")
        let (installer, gate) = try Self.heldInstaller(scratch, atWrite: 3)
        let task = Task { () throws -> [InstallUpdate] in
            var seen: [InstallUpdate] = []
            for try await status in installer.statusUpdates() { seen.append(status) }
            return seen
        }
        await Self.cancelWhenHeld(task, gate: gate, destination: scratch.file("a"))

        let resumed = try await installer.install()
        #expect(resumed.filesResumed >= 1)
        #expect(DiskTree.read(scratch.file("a")) == DiskTree(Self.tree))
    }

    @Test func leavingTheLoopEarlyCancelsTheInstall() async throws {
        let scratch = try TemporaryDirectory("status-break")
        let (installer, gate) = try Self.heldInstaller(scratch, atWrite: 2)
        for try await status in installer.statusUpdates() where status.isWritingStatus { break }
        gate.open()
        // The install was cancelled when the iterator went away: the next one waits for its lock, then resumes.
        let result = try await installer.install()
        #expect(!result.upToDate)
        #expect(DiskTree.read(scratch.file("a")) == DiskTree(Self.tree))
    }

    @Test func taskCancellationReachesAnAwaitedInstall() async throws {
        let scratch = try TemporaryDirectory("status-task")
        let (installer, gate) = try Self.heldInstaller(scratch, atWrite: 2)
        let task = Task { try await installer.install() }
        await Self.cancelWhenHeld(task, gate: gate, destination: scratch.file("a"))
    }

    @Test func aFoundationProgressFollowsTheBytesAndEndsComplete() async throws {
        let scratch = try TemporaryDirectory("status-progress")
        let installer = try AssetInstaller(source: DirectorySource(root: try Self.folder(scratch)), destination: scratch.file("a"))
        let progress = Progress(totalUnitCount: 0)
        let result = try await installer.install(reportingTo: progress)
        let bytes = Int64(Self.tree.files.values.reduce(0) { $0 + $1.count })
        #expect(!result.upToDate)
        #expect(progress.totalUnitCount == bytes && progress.completedUnitCount == bytes)
        #expect(progress.fractionCompleted == 1 && progress.isCancellable)

        let parent = Progress(totalUnitCount: 10)
        let child = Progress(totalUnitCount: 0)
        parent.addChild(child, withPendingUnitCount: 10)
        let again = try await installer.install(reportingTo: child)
        #expect(again.upToDate && child.fractionCompleted == 1 && parent.fractionCompleted == 1)
    }

    @Test func cancellingTheProgressCancelsTheInstall() async throws {
        let scratch = try TemporaryDirectory("status-progress-cancel")
        let (installer, gate) = try Self.heldInstaller(scratch, atWrite: 2)
        let progress = Progress(totalUnitCount: 1)
        let handled = Flag()
        progress.cancellationHandler = { handled.set() }
        let task = Task { try await installer.install(reportingTo: progress) }
        await gate.reached()
        #expect(progress.completedUnitCount < progress.totalUnitCount)
        progress.cancel()
        // Foundation may call cancellation handlers on a queue of its own: the install is let go once they ran.
        let deadline = Date().addingTimeInterval(60)
        while !handled.isSet && Date() < deadline { try await Task.sleep(nanoseconds: 1_000_000) }
        #expect(handled.isSet, "the handler set before the install is still called")
        gate.open()
        let error = await #expect(throws: AssetPackError.self) { try await task.value }
        #expect(error?.code == .cancelled)
        #expect(!FileManager.default.fileExists(atPath: scratch.file("a")))

        let cancelledBefore = Progress(totalUnitCount: 1)
        cancelledBefore.cancel()
        let before = await #expect(throws: AssetPackError.self) { try await installer.install(reportingTo: cancelledBefore) }
        #expect(before?.code == .cancelled)
    }
}

extension InstallUpdate {
    var isWritingStatus: Bool {
        if case .writing = self { return true }
        return false
    }
}

/// Holds the `count`-th `open` of a ``GatedSource`` until ``open()``; ``reached()`` waits for it.
final class Gate: @unchecked Sendable {
    private let count: Int
    private let lock = NSCondition()
    private var opens = 0
    private var isOpen = false

    init(at count: Int) { self.count = count }

    /// Called by the source on each `open`: blocks the `count`-th one until the gate opens.
    func pass() {
        lock.lock()
        defer { lock.unlock() }
        opens += 1
        lock.broadcast()
        if opens == count { while !isOpen { lock.wait() } }
    }

    /// Waits until the `count`-th `open` is held.
    func reached() async {
        while !isReached { try? await Task.sleep(nanoseconds: 1_000_000) }
    }

    private var isReached: Bool {
        lock.lock()
        defer { lock.unlock() }
        return opens >= count
    }

    func open() {
        lock.lock()
        isOpen = true
        lock.broadcast()
        lock.unlock()
    }
}

/// A source whose `open` passes a ``Gate`` first, so a test can hold an install mid-way.
final class GatedSource: SizedAssetSource, @unchecked Sendable {
    let base: DirectorySource
    let gate: Gate

    init(_ base: DirectorySource, gate: Gate) {
        self.base = base
        self.gate = gate
    }

    var name: String { base.name }

    func list(_ path: AssetPath) throws(AssetPackError) -> [String] { try base.list(path) }

    func size(of path: AssetPath) throws(AssetPackError) -> UInt64? { try base.size(of: path) }

    func open(_ path: AssetPath) throws(AssetPackError) -> any ByteStream {
        // Not the planner's look for a bundle's identity or manifest.
        if !path.string.hasPrefix(".assetpack") && !path.string.hasPrefix(BundleManifest.reservedDirectory) { gate.pass() }
        return try base.open(path)
    }
}

final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    func set() { lock.lock(); value = true; lock.unlock() }
    var isSet: Bool { lock.lock(); defer { lock.unlock() }; return value }
}
