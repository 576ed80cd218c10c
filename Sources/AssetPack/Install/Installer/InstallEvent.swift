/// The hook an app sets as ``AssetInstaller/log`` to see what an install did: called on the installing
/// thread with each ``InstallEvent``, one at a time.
///
/// Pass the events to the app's logger, e.g. swift-log's `Logger` or `os.Logger`:
/// ```swift
/// installer.log = { event in logger.info("\(event)") }
/// ```
public typealias InstallLog = @Sendable (InstallEvent) -> Void

/// Something an install did that an app may want in its log: what was skipped, resumed, reused, or thrown
/// away. Printed (``description``), it is one sentence.
public enum InstallEvent: Sendable, Equatable, CustomStringConvertible {
    /// The destination already held this bundle; nothing was read beyond its record and nothing written.
    case upToDate(destination: String)
    /// A staging tree left by an install of another version (or one that could not be resumed) was removed
    /// before this install started afresh.
    case stagingDiscarded(path: String)
    /// Files (and blocks of a large file) that an interrupted earlier install had written and verified were
    /// checked again and kept instead of being written anew.
    case resumed(files: Int, bytes: UInt64)
    /// The destination held an earlier version: its files that did not change were reused (hard-linked
    /// into the new tree), the others written.
    case upgraded(reused: Int, written: Int)
    /// The previous tree held these entries that assetpack did not write (a folder once, ending with `/`):
    /// they were carried into the new tree.
    case keptUnknown(paths: [String])
    /// The previous tree held these entries that assetpack did not write: removed, as the options asked.
    case removedUnknown(paths: [String])
    /// The new tree is in place.
    case installed(destination: String, files: Int, bytes: UInt64)

    /// One sentence: `resumed 12 files (3.4 MiB) left by an interrupted install`.
    public var description: String {
        switch self {
        case .upToDate(let destination):
            "\(destination) is up to date"
        case .stagingDiscarded(let path):
            "discarded the staging tree \(path), left by an install of another version"
        case .resumed(let files, let bytes):
            "resumed \(files) \(files == 1 ? "file" : "files") (\(ByteCount.text(bytes))) left by an interrupted install"
        case .upgraded(let reused, let written):
            "upgraded: \(reused) unchanged \(reused == 1 ? "file" : "files") reused, \(written) written"
        case .keptUnknown(let paths):
            "kept \(paths.count) \(paths.count == 1 ? "entry" : "entries") that assetpack did not write: \(Self.listed(paths))"
        case .removedUnknown(let paths):
            "removed \(paths.count) \(paths.count == 1 ? "entry" : "entries") that assetpack did not write: \(Self.listed(paths))"
        case .installed(let destination, let files, let bytes):
            "installed \(files) \(files == 1 ? "file" : "files") (\(ByteCount.text(bytes))) into \(destination)"
        }
    }

    /// Up to five of `paths`, then how many more.
    static func listed(_ paths: [String]) -> String {
        let shown = paths.prefix(5).joined(separator: ", ")
        return paths.count > 5 ? shown + " and \(paths.count - 5) more" : shown
    }

    /// The events that `result` stands for, in the order they happened.
    static func events(of result: ExpansionResult) -> [InstallEvent] {
        guard !result.upToDate else { return [.upToDate(destination: result.destination)] }
        var events: [InstallEvent] = []
        if result.filesResumed > 0 || result.bytesResumed > 0 {
            events.append(.resumed(files: result.filesResumed, bytes: result.bytesResumed))
        }
        if result.filesLinked > 0 {
            events.append(.upgraded(reused: result.filesLinked, written: result.filesWritten))
        }
        if !result.unknownKept.isEmpty { events.append(.keptUnknown(paths: result.unknownKept)) }
        if !result.unknownDeleted.isEmpty { events.append(.removedUnknown(paths: result.unknownDeleted)) }
        events.append(.installed(destination: result.destination, files: result.files, bytes: result.bytes))
        return events
    }
}

extension AssetInstaller {
    /// `result`, after its events went to ``log``.
    func logged(_ result: ExpansionResult) -> ExpansionResult {
        if let log {
            for event in InstallEvent.events(of: result) { log(event) }
        }
        return result
    }
}
