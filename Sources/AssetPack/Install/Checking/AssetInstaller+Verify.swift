import AssetPackSystem

/// What ``AssetInstaller/verify()`` found, or ``AssetInstaller/repair(progress:cancellation:)`` found and did.
public struct VerifyResult: Sendable, Equatable {
    /// What became of the destination.
    public enum Outcome: String, Sendable, Hashable {
        /// It held the source's version and every entry matched the record: nothing was written.
        case upToDate = "up-to-date"
        /// It held the source's version; the entries that differed were written again.
        case repaired
        /// It held nothing, another version, or no readable record: the source was installed (an upgrade,
        /// which rewrote the entries that differed instead of reusing them).
        case installed
        /// Found by ``AssetInstaller/verify()``: the source's version, with entries that differ.
        case damaged
        /// Found by ``AssetInstaller/verify()``: nothing, another version, or no readable record.
        case outdated
    }

    /// The destination, absolute.
    public var destination: String
    /// What became of it.
    public var outcome: Outcome
    /// Entries that differed from the install record, found before anything was written, in path order.
    public var problems: [InstalledTreeProblem] = []
    /// The paths of ``problems``, written again by this call (empty when nothing was written).
    public var repaired: [String] = []
    /// Names in the destination that the record did not know, in path order (a folder once, ending with
    /// `/`). A repair or an upgrade carries them into the new tree unless ``ExpansionOptions/removesUnknownEntries``
    /// asks for their removal: see ``unknownRemoved``.
    public var unknown: [String] = []
    /// True when ``unknown`` were removed by this call's repair or install (``ExpansionOptions/removesUnknownEntries``).
    public var unknownRemoved = false
    /// Files (and symlinks) the record lists, all checked.
    public var filesChecked = 0
    /// The bytes of the files checked.
    public var bytesChecked: UInt64 = 0
    /// The identity the destination records (after a repair or install, the new one); nil when it records none.
    public var identity: String?
    /// Wall-clock seconds the call took.
    public var seconds: Double = 0
    /// What the install part did, when anything was installed or repaired (nil otherwise).
    public var expansion: ExpansionResult?
}

extension AssetInstaller {
    /// The deep check: reads every installed file again and compares it with the install record — type,
    /// size, permissions, CRC-32, and folders and link targets — and the recorded identity with the source's.
    /// It never writes, creates or removes anything; ``repair(progress:cancellation:)`` writes what differs.
    ///
    /// Runs under the install lock and reads every file (on ``ExpansionOptions/jobs`` threads).
    /// - Returns: ``VerifyResult/Outcome/upToDate``, ``VerifyResult/Outcome/damaged`` or
    ///   ``VerifyResult/Outcome/outdated``, with the entries that differ and those the record does not know.
    /// - Throws: ``AssetPackError``, as ``installSynchronously(progress:cancellation:)`` does.
    public func verify() throws(AssetPackError) -> VerifyResult {
        try checked(creating: false) { _, result throws(AssetPackError) in
            if let stamp = result.identity, try sourceStamp(recorded: stamp) == stamp {
                result.outcome = result.problems.isEmpty ? .upToDate : .damaged
            }
        }
    }

    /// The deep check of ``verify()``, then the repair of what differs, through the same staging tree and
    /// atomic switch as ``installSynchronously(progress:cancellation:)``.
    ///
    /// A repair is an upgrade to the same version in which the entries that differ are treated as missing
    /// (the others are hard-linked, as an upgrade links them): a reader sees the damaged tree or the repaired
    /// one, and an error leaves the damaged tree as it was. Names the record does not know are carried over
    /// as by an upgrade. Another version, or none, is installed, never reusing damaged files.
    /// - Parameters:
    ///   - progress: reported while repairing or installing, as for ``installSynchronously(progress:cancellation:)``.
    ///   - cancellation: stops a repair at the next file; the destination keeps its damaged tree.
    /// - Returns: ``VerifyResult/Outcome/upToDate``, ``VerifyResult/Outcome/repaired`` or
    ///   ``VerifyResult/Outcome/installed``, with what was written again and removed.
    /// - Throws: ``AssetPackError``, as ``installSynchronously(progress:cancellation:)`` does.
    @discardableResult
    public func repair(progress: (@Sendable (ExpansionProgress) -> Void)? = nil,
                       cancellation: ExpansionCancellation? = nil) throws(AssetPackError) -> VerifyResult {
        try checked(creating: true) { parent, result throws(AssetPackError) in
            guard !result.problems.isEmpty || result.identity == nil || upToDateStamp() == nil else {
                return result.outcome = .upToDate
            }
            let expansion = try rebuild(in: parent, repairing: Set(result.problems.map(\.path)), progress: progress,
                                        cancellation: cancellation)
            guard !expansion.upToDate else { return result.outcome = .upToDate }
            result.outcome = expansion.identity == result.identity ? .repaired : .installed
            result.repaired = result.problems.map(\.path)
            result.unknownRemoved = !expansion.unknownDeleted.isEmpty
            (result.identity, result.expansion) = (expansion.identity, expansion)
        }
    }

    /// Reads the installed tree against its record under the install lock (its parent folder made first when
    /// `creating`), then lets `decide` set the outcome (``VerifyResult/Outcome/outdated`` until it does) and act
    /// in the parent folder it is handed; the whole is timed.
    private func checked(creating: Bool, decide: (Descriptor, inout VerifyResult) throws(AssetPackError) -> Void)
        throws(AssetPackError) -> VerifyResult {
        let started = SystemClock.monotonicSeconds()
        if creating { _ = try io(FileSystem.makeDirectories(parentPath)) }
        var result = VerifyResult(destination: destination, outcome: .outdated)
        guard let parent = try InstallLocation(self).openParent() else { return result }
        let lock = try InstallLock(parent)
        defer { lock.release() }
        if let found = try InstalledTreeCheck.inspect(name, in: parent, readContents: true, jobs: options.jobs) {
            (result.problems, result.unknown, result.identity) = (found.outcome.problems, found.outcome.unknown, found.stamp)
            (result.filesChecked, result.bytesChecked) = (found.outcome.files, found.outcome.bytes)
        }
        try decide(parent, &result)
        result.seconds = SystemClock.monotonicSeconds() - started
        result.expansion?.seconds = result.seconds
        return result
    }

    /// Runs the install transaction with `repairing` never reused. A staging tree left beside the
    /// destination is removed first when repairing: with the stamps equal, an old tree switched out by an
    /// interrupted repair would look like a complete new one.
    private func rebuild(in parent: Descriptor, repairing: Set<String>, progress: (@Sendable (ExpansionProgress) -> Void)?,
                         cancellation: ExpansionCancellation?) throws(AssetPackError) -> ExpansionResult {
        try SourceOverlap.check(source, parent: parentPath, name: name, destination: destination)
        if !repairing.isEmpty {
            try io(TreeRemoval.remove(StagingNames.staging(for: name), in: parent))
            try io(TreeRemoval.remove(StagingNames.previous(for: name), in: parent))
        }
        let tracker = ProgressTracker(callback: progress, cancellation: cancellation)
        return try InstallTransaction(installer: self, parent: parent, progress: tracker, repairing: repairing).run()
    }
}
