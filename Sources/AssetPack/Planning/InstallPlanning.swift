import AssetPackSystem

/// How an install plans its source: the one place that chooses. A source that can be planned as it is read
/// is handed on ``windowItems`` items at a time (``PlanWindow``); any other is planned whole, as one window.
///
/// | source | planned by | its stamp is known |
/// | --- | --- | --- |
/// | a bundle whose `assetpack-meta/identity` can be read (a folder, an archive, an APK, a bundle delivered from a server) | ``ManifestPlanner``, as its manifest is read | before planning (the identity file) |
/// | a packed-bundle view, its manifest in hand | ``ManifestPlanner``, over its entries | before planning |
/// | an archive given as the source, without a bundle in it | ``ArchiveWindowPlanner``, as its central directory is read | after the last window; before, by a first pass that writes nothing, when a tree or a staging tree is there already |
/// | any other source (a folder, a Foundation bundle, Android's assets): walked | ``ExpansionPlanner``, whole | before writing |
///
/// A windowed planner that meets what only a whole plan decides (entries out of order, two names that may
/// collide, a `.zip` file inside an archive, an identity file that does not match its manifest) stops:
/// ``run(handOver:)`` returns nil, and the install plans again with ``whole(_:)``, which decides and words it.
struct InstallPlanning {
    /// What the source is planned from.
    enum Way {
        /// A bundle's manifest, read from the source as it is planned; `identity` from its identity file.
        case manifest(identity: String)
        /// A bundle's manifest in hand, its files read from `source`.
        case manifestInHand(BundleManifest, source: ResolvedSource)
        /// The archive given as the source.
        case archive
        /// A plan made whole before writing.
        case whole(ExpansionPlan)
    }

    /// Items in a window.
    static let windowItems = 16_384
    /// Bytes of manifest text per entry, to estimate a tree's files from its manifest's size.
    private static let manifestBytesPerEntry: UInt64 = 300

    let way: Way
    /// The stamp the tree gets (``ExpansionPlan/stamp``) when known before it is written.
    let stamp: String?
    /// The files the tree is expected to hold (0 when unknown), for ``EarlyWriteback``.
    let estimatedFiles: Int
    let installer: AssetInstaller

    /// Items in a window of this install (the test seam's, or ``windowItems``).
    var windowSize: Int { max(1, installer.options.testSeam.windowItems ?? Self.windowItems) }

    /// The plan of a source that the install must plan whole.
    static func whole(_ installer: AssetInstaller) throws(AssetPackError) -> InstallPlanning {
        let plan = try ExpansionPlanner.plan(installer.source, options: installer.options)
        try SourceCheck.notEmpty(plan, options: installer.options)
        return InstallPlanning(way: .whole(plan), stamp: plan.stamp, estimatedFiles: plan.fileCount, installer: installer)
    }

    /// How `installer`'s source is planned (see the table above). `needsStampFirst`: something is at the
    /// destination or in staging, so the stamp must be known before anything is written.
    static func choose(_ installer: AssetInstaller, needsStampFirst: Bool) throws(AssetPackError) -> InstallPlanning {
        let source = installer.source, options = installer.options
        if case .packedBundle(let base, let manifest) = source.storage {
            return InstallPlanning(way: .manifestInHand(manifest, source: ResolvedSource(base)),
                                   stamp: manifest.identity,
                                   estimatedFiles: manifest.entries.count, installer: installer)
        }
        if case .archive = source.storage, !options.testSeam.walksArchives,
           case .some(.none) = try? BundleManifest.readIdentity(from: source) {
            return try archive(installer, needsStampFirst: needsStampFirst)
        }
        guard let identity = try? BundleManifest.readIdentity(from: source) else { return try whole(installer) }
        let manifestBytes = (try? (source as? any SizedAssetSource)?.size(of: AssetPath(BundleManifest.path))).flatMap { $0 }
        return InstallPlanning(way: .manifest(identity: identity), stamp: identity,
                               estimatedFiles: Int((manifestBytes ?? 0) / manifestBytesPerEntry), installer: installer)
    }

    /// An archive given as the source; its stamp found first by a pass that plans without writing when
    /// `needsStampFirst` (whole, when that pass finds it must be).
    private static func archive(_ installer: AssetInstaller, needsStampFirst: Bool) throws(AssetPackError) -> InstallPlanning {
        guard case .archive(let archive, _) = installer.source.storage else { return try whole(installer) }
        let planning = InstallPlanning(way: .archive, stamp: nil, estimatedFiles: archive.entryCount, installer: installer)
        guard needsStampFirst else { return planning }
        guard let stamp = try planning.run(handOver: { _ throws(AssetPackError) in }) else { return try whole(installer) }
        return InstallPlanning(way: .archive, stamp: stamp, estimatedFiles: archive.entryCount, installer: installer)
    }

    /// The marker of a staging tree built by this plan (``StagingArea``): the stamp, or for an archive the
    /// fingerprint of its central directory (its stamp may be known only at its end). A staging tree with
    /// this marker is resumed, every file in it checked against the plan again.
    var marker: String {
        if case .archive(let archive, _) = installer.source.storage,
           let fingerprint = SourceFingerprint.of(installer.source.storage, options: installer.options) {
            return "assetpack-1 archive \(fingerprint) \(archive.entryCount)"
        }
        return stamp ?? ""
    }

    /// Plans the source, handing each window to `handOver` in order; returns the tree's stamp, or nil when the
    /// source needs a whole plan (see the type's notes; nothing is handed on after that).
    func run(handOver: @escaping (PlanWindow) throws(AssetPackError) -> Void) throws(AssetPackError) -> String? {
        let options = installer.options
        switch way {
        case .whole(let plan):
            try handOver(PlanWindow(plan: plan, openFolders: []))
            return plan.stamp
        case .manifestInHand(let manifest, let source):
            let planner = ManifestPlanner<PlanWindowBuilder>(source: source, options: options, identity: manifest.identity,
                                                windowSize: windowSize, handOver: handOver)
            try planner.take(manifest.entries, expectedCount: manifest.entries.count)
            try planner.finish()
            return planner.needsWholePlan ? nil : manifest.identity
        case .manifest(let identity):
            let planner = ManifestPlanner<PlanWindowBuilder>(source: ResolvedSource(installer.source), options: options, identity: identity,
                                                windowSize: windowSize, handOver: handOver)
            let located = try BundleManifest.locate(in: installer.source, into: planner)
            try planner.finish()
            guard let located, !planner.needsWholePlan, located.manifest.identity == identity else { return nil }
            return identity
        case .archive:
            let planner = ArchiveWindowPlanner(source: ResolvedSource(installer.source), options: options, windowSize: windowSize)
            return try planner.run(handOver: handOver).map { ExpansionPlan.treeStamp($0, options: options) }
        }
    }
}
