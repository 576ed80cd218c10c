import AssetPack
import AssetPackZip
import Foundation
import Testing
import TestSupport

/// ``AssetInstaller/log``: what an app sees of what was skipped, resumed, reused or thrown away.
@Suite struct InstallLogTests {
    static let v1 = InstallUpdateTests.tree
    static let v2: AssetTree = {
        var files = InstallUpdateTests.tree.files
        files["files/f0.txt"] = Array("changed".utf8)
        files["added.txt"] = Array("added".utf8)
        return AssetTree(files: files)
    }()

    func installer(_ folder: String, _ destination: String, events: EventLog, gate: Gate? = nil) throws -> AssetInstaller {
        let source: any AssetSource = gate.map { GatedSource(DirectorySource(root: folder), gate: $0) } ?? DirectorySource(root: folder)
        var installer = try AssetInstaller(source: source, destination: destination, options: ExpansionOptions(jobs: 1))
        installer.log = { events.append($0) }
        return installer
    }

    /// Starts an install of `folder` held at its third file, cancels it, and waits until it has stopped.
    func interruptedInstall(_ folder: String, _ destination: String) async throws {
        let gate = Gate(at: InstallUpdateTests.plannedOpens + 3)
        let task = Task { try await installer(folder, destination, events: EventLog(), gate: gate).install() }
        await gate.reached()
        task.cancel()
        gate.open()
        _ = await task.result
    }

    @Test func installedThenUpToDateThenUpgraded() async throws {
        let scratch = try TemporaryDirectory("log-upgrade")
        try Self.v1.write(to: scratch.file("v1"))
        try Self.v2.write(to: scratch.file("v2"))
        let destination = scratch.file("assets")
        let events = EventLog()
        try await installer(scratch.file("v1"), destination, events: events).install()
        try await installer(scratch.file("v1"), destination, events: events).install()
        try await installer(scratch.file("v2"), destination, events: events).install()
        let v1Bytes = Self.v1.files.values.reduce(UInt64(0)) { $0 + UInt64($1.count) }
        let v2Bytes = Self.v2.files.values.reduce(UInt64(0)) { $0 + UInt64($1.count) }
        #expect(events.all == [
            .installed(destination: destination, files: 13, bytes: v1Bytes),
            .upToDate(destination: destination),
            .upgraded(reused: 12, written: 2),
            .installed(destination: destination, files: 14, bytes: v2Bytes),
        ])
        #expect(events.all.map(\.description)[1...2] == ["\(destination) is up to date",
                                                         "upgraded: 12 unchanged files reused, 2 written"])
    }

    @Test func anInterruptedInstallIsResumedAndAnotherVersionDiscardsItsStaging() async throws {
        let scratch = try TemporaryDirectory("log-resume")
        try Self.v1.write(to: scratch.file("v1"))
        try Self.v2.write(to: scratch.file("v2"))
        let destination = scratch.file("assets")

        try await interruptedInstall(scratch.file("v1"), destination)
        let resumed = EventLog()
        // The same source as the interrupted call's (a folder source's identity covers its files' times, a gated
        // one reads its files through open).
        let result = try await installer(scratch.file("v1"), destination, events: resumed, gate: Gate(at: .max)).install()
        #expect(result.filesResumed >= 1)
        #expect(resumed.all.first == .resumed(files: result.filesResumed, bytes: result.bytesResumed))
        #expect(resumed.all.first?.description.hasPrefix("resumed \(result.filesResumed) file") == true)

        try FileManager.default.removeItem(atPath: destination)
        try await interruptedInstall(scratch.file("v1"), destination)
        let discarded = EventLog()
        try await installer(scratch.file("v2"), destination, events: discarded).install()
        let staging = scratch.file(".assets.assetpack-staging")
        #expect(discarded.all.first == .stagingDiscarded(path: staging))
        #expect(discarded.all.last == .installed(destination: destination, files: 14,
                                                 bytes: Self.v2.files.values.reduce(UInt64(0)) { $0 + UInt64($1.count) }))
    }
}

final class EventLog: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [InstallEvent] = []
    func append(_ event: InstallEvent) { lock.lock(); events.append(event); lock.unlock() }
    var all: [InstallEvent] { lock.lock(); defer { lock.unlock() }; return events }
}
