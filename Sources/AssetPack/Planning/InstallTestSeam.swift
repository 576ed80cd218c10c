import AssetPackSystem

/// The one way tests reach inside an expansion (``ExpansionOptions/testSeam``): what to assume instead of
/// asking the system, which way to plan, and where to kill the process. Package-internal, so an app can
/// never set it; the default changes nothing.
package struct InstallTestSeam: Sendable, Hashable {
    /// The free space to assume instead of asking the file system (the no-space check).
    package var freeSpace: UInt64?
    /// Plan an archive given as the source by walking it with `list`/`open` instead of reading its central
    /// directory (tests compare the two plans).
    package var walksArchives: Bool
    /// Plan windows of this many items (`InstallPlanning.windowItems` otherwise), for a source planned as it
    /// is read (a bundle's manifest, an archive's central directory).
    package var windowItems: Int?
    /// Kill the process with SIGKILL once this many files were written, ...
    package var killAfterFiles: Int?
    /// ... once this many bytes are done (inside a large file, progress is reported every 4 MiB), ...
    package var killAfterBytes: UInt64?
    /// ... or once the expansion reaches this step. End-to-end tests interrupt an expansion at exact points
    /// this way, deterministically.
    package var killAtPhase: ExpansionProgress.Phase?
    /// ... or once an upgrade in place changed this many entries of the installed tree (``InPlaceUpgrade``).
    package var killAfterAppliedEntries: Int?
    /// A durable expansion's final flush: one `syncfs` (true) or a flush per file and folder (false) whatever
    /// the system has waiting for write-back (``TreeFlush``); nil lets it choose.
    package var flushesWholeFileSystem: Bool?

    /// A seam that changes nothing, or the given changes.
    package init(freeSpace: UInt64? = nil, walksArchives: Bool = false, windowItems: Int? = nil, killAfterFiles: Int? = nil,
                 killAfterBytes: UInt64? = nil, killAtPhase: ExpansionProgress.Phase? = nil, flushesWholeFileSystem: Bool? = nil,
                 killAfterAppliedEntries: Int? = nil) {
        self.killAfterAppliedEntries = killAfterAppliedEntries
        self.freeSpace = freeSpace
        self.flushesWholeFileSystem = flushesWholeFileSystem
        self.windowItems = windowItems
        self.walksArchives = walksArchives
        self.killAfterFiles = killAfterFiles
        self.killAfterBytes = killAfterBytes
        self.killAtPhase = killAtPhase
    }

    /// The kill points the environment asks for, for the command's end-to-end tests:
    /// `ASSETPACK_TEST_KILL_AFTER_FILES=N`, `ASSETPACK_TEST_KILL_AFTER_BYTES=N`,
    /// `ASSETPACK_TEST_KILL_AT=committed|switched` (any other step name works too),
    /// `ASSETPACK_TEST_KILL_AFTER_APPLIED=N` (entries an upgrade in place changed); the window size
    /// `ASSETPACK_TEST_WINDOW_ITEMS=N`; and the way of the final flush, `ASSETPACK_TEST_FLUSH=files|filesystem`.
    package static func fromEnvironment() -> InstallTestSeam {
        // getenv, not ProcessInfo: this runs on every start, and the up-to-date path must stay short.
        func variable(_ name: String) -> String? { CurrentProcess.environment(name) }
        return InstallTestSeam(windowItems: variable("ASSETPACK_TEST_WINDOW_ITEMS").flatMap { Int($0) },
                               killAfterFiles: variable("ASSETPACK_TEST_KILL_AFTER_FILES").flatMap { Int($0) },
                               killAfterBytes: variable("ASSETPACK_TEST_KILL_AFTER_BYTES").flatMap { UInt64($0) },
                               killAtPhase: variable("ASSETPACK_TEST_KILL_AT").flatMap { ExpansionProgress.Phase(rawValue: $0) },
                               flushesWholeFileSystem: variable("ASSETPACK_TEST_FLUSH").flatMap { ["files": false, "filesystem": true][$0] },
                               killAfterAppliedEntries: variable("ASSETPACK_TEST_KILL_AFTER_APPLIED").flatMap { Int($0) })
    }

    /// True when some kill point is set.
    var kills: Bool { killAfterFiles != nil || killAfterBytes != nil || killAtPhase != nil || killAfterAppliedEntries != nil }

    /// Kills the process when `progress` has reached a kill point.
    func killIfReached(_ progress: ExpansionProgress) {
        let reached = killAfterFiles.map { progress.filesWritten >= $0 } == true
            || killAfterBytes.map { progress.phase == .writing && progress.bytesDone >= $0 } == true
            || progress.phase == killAtPhase
        if reached { CurrentProcess.killImmediately() }
    }
}
