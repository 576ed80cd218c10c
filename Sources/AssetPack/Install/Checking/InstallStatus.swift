import AssetPackSystem
import Foundation

/// What a destination holds, found without reading the contents of any installed file: the install record
/// (`.assetpack/`), names, types, sizes and modes (one `fstatat` per entry), and what an interrupted install
/// left beside it. ``InstalledTree/status(at:)`` answers without a source; ``AssetInstaller/status()``
/// also compares the installed identity with its source's, as the up-to-date check does. Encoded as one
/// flat object (what `assetpack status --json` prints): see ``encode(to:)``.
public struct InstallStatus: Sendable, Equatable, Encodable {
    /// The destination's state.
    public enum State: String, Sendable, Hashable, Encodable {
        /// No installed tree and no staging tree (the destination may be missing, empty, or a folder
        /// assetpack did not make: then ``InstallStatus/unknown`` lists what it holds).
        case notInstalled = "not-installed"
        /// No installed tree, but a staging tree (``InstallStatus/staging``) that the next install resumes
        /// (or, when complete, switches in).
        case partial
        /// An installed tree (``InstallStatus/installed``); with a source, of the source's identity.
        case installed
        /// An installed tree of another identity than the source's (only from ``AssetInstaller/status()``).
        case outdated
    }

    /// The installed tree, from its record.
    public struct Installed: Sendable, Equatable, Encodable {
        /// The recorded stamp, as ``ExpansionResult/identity`` says.
        public var identity: String
        /// Files (and symlinks) the record lists, and their bytes.
        public var files: Int
        public var bytes: UInt64
        /// When the record was written: the install (or the last repair) finished.
        public var installedAt: Date?
    }

    /// The staging tree beside the destination (`.<name>.assetpack-staging`).
    public struct Staging: Sendable, Equatable, Encodable {
        /// Its path.
        public var path: String
        /// The stamp being installed, when it says.
        public var identity: String?
        /// Files already written there and their bytes: what the next install keeps once each file has
        /// been read again and checked (files still being written are not counted).
        public var files: Int
        public var bytes: UInt64
        /// True when the tree is complete and only waits to be switched in.
        public var complete: Bool
        /// True when it holds an upgrade in place that began (``ExpansionOptions/upgradesInPlace``) and was cut
        /// short: the destination holds parts of both versions until the next install, whatever its source and
        /// options, finishes it. In JSON only when true.
        public var applying = false

        private enum CodingKeys: String, CodingKey { case path, identity, files, bytes, complete, applying }

        /// Encodes the fields; `applying` only when true.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(path, forKey: .path)
            try container.encodeIfPresent(identity, forKey: .identity)
            try container.encode(files, forKey: .files)
            try container.encode(bytes, forKey: .bytes)
            try container.encode(complete, forKey: .complete)
            if applying { try container.encode(applying, forKey: .applying) }
        }
    }

    /// The destination, absolute.
    public var destination: String
    /// Its state.
    public var state: State
    /// The installed tree, when there is one.
    public var installed: Installed?
    /// The staging tree of an interrupted install, when there is one.
    public var staging: Staging?
    /// The source's stamp, when compared with one (``AssetInstaller/status()``).
    public var sourceIdentity: String?
    /// Entries of the installed tree that differ from the record in type, size, mode or link target, in
    /// path order (contents are not read: ``AssetInstaller/verify()`` reads them).
    public var problems: [InstalledTreeProblem] = []
    /// Names in the destination that the record does not know, in path order (a folder once, ending with
    /// `/`). An upgrade or a repair removes them; status never does.
    public var unknown: [String] = []

    private enum CodingKeys: String, CodingKey { case destination, state, staging, sourceIdentity, problems, unknown }

    /// Encodes the status as one flat object: its fields by name, and in place of ``installed`` the installed
    /// tree's own (`identity`, `files`, `bytes`, `installedAt`), left out with it when there is none.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(destination, forKey: .destination)
        try container.encode(state, forKey: .state)
        try container.encodeIfPresent(staging, forKey: .staging)
        try container.encodeIfPresent(sourceIdentity, forKey: .sourceIdentity)
        try container.encode(problems, forKey: .problems)
        try container.encode(unknown, forKey: .unknown)
        try installed?.encode(to: encoder)
    }
}

extension InstalledTree {
    /// The state of the destination at `destination`, without a source (never ``InstallStatus/State/outdated``).
    /// Reads the record, names and sizes only; writes nothing and takes no lock (a snapshot).
    /// - Throws: ``AssetPackError/Code/invalidArgument`` when `destination` is not a folder (a file, a link).
    public static func status(at destination: String) throws(AssetPackError) -> InstallStatus {
        try InstallStatus.inspect(InstallLocation(path: destination))
    }
}

extension AssetInstaller {
    /// The state of the destination compared with this installer's source: ``InstallStatus/State/outdated``
    /// when the installed identity is not the source's (found as the up-to-date check finds it, else by a
    /// plan of the source). No installed file's contents are read.
    public func status() throws(AssetPackError) -> InstallStatus {
        var status = try InstallStatus.inspect(InstallLocation(self))
        let identity = try sourceStamp(recorded: status.installed?.identity)
        status.sourceIdentity = identity
        if let installed = status.installed, installed.identity != identity { status.state = .outdated }
        return status
    }

    /// The source's stamp, planned only when neither its identity file nor the recorded fingerprint tells.
    func sourceStamp(recorded: String?) throws(AssetPackError) -> String {
        if let stamp = ExpansionPlanner.quickStamp(source) { return stamp }
        if let recorded, let fingerprint = SourceFingerprint.of(source.storage, options: options),
           InstallRecord.sourceFingerprint(atPath: destination) == fingerprint + " " + recorded {
            return recorded
        }
        return try ExpansionPlanner.plan(source, options: options).stamp
    }
}

extension InstallStatus {
    /// The status of `location`, from its record, a walk of names and sizes, and the staging tree.
    static func inspect(_ location: InstallLocation) throws(AssetPackError) -> InstallStatus {
        var status = InstallStatus(destination: location.destination, state: .notInstalled)
        guard let parent = try location.openParent() else { return status }
        if let found = try InstalledTreeCheck.inspect(location.name, in: parent, readContents: false, jobs: 1) {
            status.problems = found.outcome.problems
            status.unknown = found.outcome.unknown
            if let stamp = found.stamp {
                status.state = .installed
                status.installed = Installed(identity: stamp, files: found.outcome.files, bytes: found.outcome.bytes,
                                             installedAt: recordTime(of: found.tree))
            }
        }
        status.staging = try StagingSurvey.survey(location, in: parent, besideInstalled: status.installed != nil)
        if status.state == .notInstalled && status.staging != nil { status.state = .partial }
        // Mid-upgrade, the destination's entries are the two versions', not the user's.
        if status.staging?.applying == true { status.unknown = [] }
        return status
    }

    /// When the record's stamp was written.
    private static func recordTime(of tree: Descriptor) -> Date? {
        guard let folder = try? tree.directory(StagingNames.recordDirectory),
              let stamp = try? folder.status(StagingNames.stampFile) else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(stamp.modified))
    }
}

/// What an interrupted install left in the staging tree, from names and sizes alone.
private enum StagingSurvey {
    /// The staging tree of `location`: one being built (it has the staging marker), or a complete one
    /// waiting to be switched in where no tree is installed. A complete tree beside an installed one is
    /// the previous version switched out (or one about to replace it): not reported.
    static func survey(_ location: InstallLocation, in parent: Descriptor,
                       besideInstalled installed: Bool) throws(AssetPackError) -> InstallStatus.Staging? {
        guard try io(parent.status(location.stagingName))?.kind == .directory else { return nil }
        let tree = try io(parent.directory(location.stagingName))
        let marker = StagingArea.marker(of: tree)
        let stamp = InstallRecord.stamp(of: tree)
        guard marker != nil || (stamp != nil && !installed) else { return nil }
        var staging = InstallStatus.Staging(path: parent.child(location.stagingName), identity: marker ?? stamp,
                                            files: 0, bytes: 0, complete: stamp != nil)
        staging.applying = InPlaceUpgrade.isPending(location.name, in: parent)
        try count(tree, isRoot: true, into: &staging)
        // An upgrade in place stages its files in one flat folder of the record folder.
        if let flat = try StagingLayout.flat.flatFolder(in: tree, making: false) { try count(flat, isRoot: false, into: &staging) }
        return staging
    }

    /// Counts the finished-looking files below `folder`: not the record, temporaries, journals, files
    /// with a journal (still being written in blocks) or without permission bits (still being written).
    private static func count(_ folder: Descriptor, isRoot: Bool, into staging: inout InstallStatus.Staging) throws(AssetPackError) {
        let names = try io(folder.names()).compactMap(\.string)
        let journals = Set(names.filter(BlockJournal.isJournal))
        for name in names where !(isRoot && name == StagingNames.recordDirectory) && !name.hasPrefix(StagingNames.temporaryPrefix)
            && !journals.contains(name) && !journals.contains(BlockJournal.name(for: name)) {
            guard let status = try io(folder.status(name)) else { continue }
            if status.kind == .directory {
                try count(try io(folder.directory(name)), isRoot: false, into: &staging)
            } else if status.kind == .file && status.permissions != 0 {
                staging.files += 1
                staging.bytes += status.size
            }
        }
    }
}
