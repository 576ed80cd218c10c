/// The names assetpack uses in and beside a destination. Everything starts with `.` and contains
/// `assetpack`, so it is easy to recognize; once an install is complete only ``recordDirectory`` is left (and,
/// after the upgrade of a delivered bundle, the previous tree beside the destination until the next call).
enum StagingNames {
    /// The record folder inside a complete destination (and inside a staging tree being built).
    static let recordDirectory = PlanBuilder.recordDirectory
    /// Inside ``recordDirectory``: the stamp (identity and options) of the installed tree.
    static let stampFile = "identity"
    /// Inside ``recordDirectory``: the ``SourceFingerprint`` of an archive given as the source, and the stamp.
    static let sourceFile = "source"
    /// Inside ``recordDirectory``: every installed file, folder and link (``InstallRecord``), JSON compressed with
    /// gzip (``RecordCompression``).
    static let recordFile = "installed.json.gz"
    /// Inside ``recordDirectory`` of a tree installed before the record was compressed: the same record as plain
    /// JSON, read when there is no ``recordFile`` and removed when the next record is written.
    static let plainRecordFile = "installed.json"
    /// Inside ``recordDirectory`` of a staging tree only: the stamp being staged, so a resumed run knows
    /// whether the files already there belong to the same bundle.
    static let stagingMarkerFile = "staging"
    /// Inside ``recordDirectory`` of a complete staging tree only: written when an upgrade in place
    /// (``ExpansionOptions/upgradesInPlace``) starts changing the installed tree, so every later call finishes
    /// it first (``InPlaceUpgrade``); it lists the unknown entries the upgrade removes, one path a line.
    static let applyingMarkerFile = "applying"
    /// Inside ``recordDirectory`` of a staging tree only: the folder where an upgrade in place stages its files
    /// (``StagingLayout/flat``) — those it writes, and hard links of the renamed and moved ones —, each named by the
    /// SHA-256 of its new path, so staging them makes no folder.
    static let movedFilesFolder = "moved"
    /// Inside ``recordDirectory``: an empty file saying that every file of the tree was on the device before
    /// its stamp was written (an install with `Durability.flushOnCommit`), so an upgrade that links the
    /// tree's unchanged files need not flush them again.
    static let flushedMarkerFile = "flushed"
    /// The prefix of a file being written: it only gets its final name after it verified.
    static let temporaryPrefix = PlanBuilder.temporaryPrefix

    /// Inside the staging tree: the manifest of a delivered bundle being fetched, unlinked as soon as it is
    /// made (`AssetInstaller.manifestSpool(for:)`).
    static let manifestSpool = temporaryPrefix + "manifest.json"

    /// The staging tree beside destination `name`: `.<name>.assetpack-staging`.
    static func staging(for name: String) -> String { ".\(name).assetpack-staging" }

    /// Where the previous tree waits for removal when the file system cannot swap two names.
    static func previous(for name: String) -> String { ".\(name).assetpack-previous" }
}
