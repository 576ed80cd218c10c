/// Where an install stands, as ``AssetInstaller/statusUpdates(every:)`` reports it: the steps an app shows
/// to a person, in order. A failure or a cancellation is not a status: the sequence throws it.
///
/// An install that finds the destination up to date reports only ``done(_:)``, with
/// ``ExpansionResult/upToDate`` set.
public enum InstallUpdate: Sendable, Equatable {
    /// Reading the bundle's manifest (or walking a source without one) and checking what is already there.
    case planning
    /// Fetching the files of a bundle from its server (`AssetPackRemote`), beside ``writing(_:)``: bytes of file
    /// data received, out of those the install's plan announced (its dry run's `InstallPreview/bytesToFetch`);
    /// at most once per interval, and the last counts before the next step.
    case downloading(bytesDone: UInt64, bytesTotal: UInt64)
    /// Writing the new tree beside the destination. Totals are known from the start; files kept from an
    /// interrupted install or reused from the previous version count as done as soon as they are found.
    case writing(Counts)
    /// Putting the written tree on the device so that it survives a power loss
    /// (``ExpansionOptions/durability``); not reported with ``Durability/none``.
    case flushing
    /// Switching the new tree in and removing the previous one.
    case switching
    /// Finished: the destination holds the new tree (or held it already).
    case done(ExpansionResult)

    /// How far ``InstallUpdate/writing(_:)`` is.
    public struct Counts: Sendable, Equatable {
        /// Bytes finished, out of ``bytesTotal``.
        public var bytesDone: UInt64
        /// Bytes in the tree.
        public var bytesTotal: UInt64
        /// Files finished, out of ``filesTotal``.
        public var filesDone: Int
        /// Files (and symbolic links) in the tree.
        public var filesTotal: Int

        /// Counts with the given values.
        public init(bytesDone: UInt64, bytesTotal: UInt64, filesDone: Int, filesTotal: Int) {
            self.bytesDone = bytesDone
            self.bytesTotal = bytesTotal
            self.filesDone = filesDone
            self.filesTotal = filesTotal
        }

        /// Bytes done as a fraction of the total, 0 to 1 (files when the tree has no bytes).
        public var fractionCompleted: Double {
            if bytesTotal > 0 { return Double(bytesDone) / Double(bytesTotal) }
            return filesTotal > 0 ? Double(filesDone) / Double(filesTotal) : 1
        }
    }
}

extension InstallUpdate {
    /// The status a progress report stands for; nil for the steps that add nothing a person sees
    /// (``ExpansionProgress/Phase/switched`` is still switching, and ``done(_:)`` carries the result).
    package init?(_ progress: ExpansionProgress) {
        switch progress.phase {
        case .planning: self = .planning
        case .writing:
            self = .writing(Counts(bytesDone: progress.bytesDone, bytesTotal: progress.bytesTotal,
                                   filesDone: progress.filesDone, filesTotal: progress.filesTotal))
        case .flushing: self = .flushing
        case .committed: self = .switching
        case .switched, .done: return nil
        }
    }

    /// For counts, throttled by kind: 0 for ``writing(_:)``, 1 for ``downloading(bytesDone:bytesTotal:)``; nil
    /// for a step.
    var countsKind: Int? {
        switch self {
        case .writing: 0
        case .downloading: 1
        default: nil
        }
    }
}
