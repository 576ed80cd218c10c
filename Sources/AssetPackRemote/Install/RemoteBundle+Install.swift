import AssetPack
import Foundation

extension RemoteBundle {
    /// Installs the bundle into `destination`, or finds it there already, the way `AssetInstaller` installs
    /// a local bundle (the same planner, staging tree, block journal, atomic switch and install record), fetching
    /// only what the destination does not hold:
    ///
    /// 1. fetches the identity (one small request); when the destination's record has it and no interrupted
    ///    install lies beside it, returns `ExpansionResult.upToDate` — nothing else is fetched;
    /// 2. fetches the manifest into an unlinked file in the destination's staging tree, hashing it on the way,
    ///    and checks it (and its signature) against `trust` **before anything is installed**;
    /// 3. installs from a `DeliveredBundleSource` planned from that file a window at a time, as a local bundle
    ///    is (its identity checked against its entries and against the identity fetched first): files the installed tree holds unchanged are linked, a
    ///    block-indexed file takes the blocks whose SHA-256 did not change from its installed copy, and the rest
    ///    is fetched on up to ``FetchOptions/maxConcurrentRequests`` connections, each file or block streamed
    ///    into the staging tree (inflated on the way) and checked against the manifest's SHA-256 and CRC-32
    ///    before it counts. A killed or failed install resumes where it stopped; the previous tree stays in place
    ///    until the new one is complete. Bytes that never match the manifest make it fetch the identity again:
    ///    when the bundle was published again meanwhile, the install starts over from the new manifest.
    ///
    /// After the switch the previous tree waits beside the destination as `.NAME.assetpack-previous` (removing it
    /// can cost as much as the upgrade); the next call for the destination removes it under the install lock:
    /// an up-to-date check before it answers, an install while it fetches and writes.
    ///
    /// ``FetchOptions/consent``, when set, is asked once the manifest is checked and before any file data is
    /// fetched, with the plan ``dryRun(into:trust:options:fetcher:)`` gives. To follow the install (planning,
    /// downloading, writing), iterate ``statusUpdates(into:trust:options:fetcher:log:every:)`` instead.
    ///
    /// - Parameters:
    ///   - destination: the folder to install into (as `AssetInstaller.init(source:destination:options:)`).
    ///   - trust: what the manifest must satisfy (``ManifestTrust/signed(by:)`` for a bundle signed at build time).
    ///   - options: how to expand; `ExpansionOptions.jobs` is raised to the fetcher's concurrency.
    ///   - fetcher: how to talk to the server (`http://` only with ``FetchOptions/allowsPlainHTTP``).
    ///   - log: what was reused, resumed or thrown away (`InstallEvent`).
    /// - Throws: `AssetPackError` naming the URL or file and the reason: `untrusted` (signature or pin),
    ///   `network` (the server out of reach after the retries), `verification` (bytes that never matched the
    ///   manifest, e.g. an older copy from a cache), `declined` (``FetchOptions/consent`` said no), `manifest`,
    ///   `not-found`, and the installer's own errors; the destination keeps its previous complete tree.
    ///
    /// The install runs on a thread of its own (its fetches block their threads, never the cooperative pool);
    /// cancelling the calling task stops it, fetches in flight included.
    @discardableResult
    public func install(into destination: String, trust: ManifestTrust, options: ExpansionOptions = ExpansionOptions(),
                        fetcher: RemoteFetcher = RemoteFetcher(), log: InstallLog? = nil) async throws(AssetPackError) -> ExpansionResult {
        try await AssetInstaller.onOwnThread { cancellation throws(AssetPackError) in
            try installSynchronously(into: destination, trust: trust, options: options, fetcher: fetcher, log: log,
                                     cancellation: cancellation)
        }
    }

    /// ``install(into:trust:options:fetcher:log:)`` while the returned sequence is iterated, reporting each step
    /// as `AssetInstaller.statusUpdates(every:)` does for a local bundle (the same `InstallStatusUpdates`), with
    /// `InstallUpdate.downloading(bytesDone:bytesTotal:)` beside the writing counts: bytes of file data received,
    /// out of the plan's (``dryRun(into:trust:options:fetcher:)``'s `bytesToFetch`, worked out once the manifest
    /// is checked). Cancelling the iterating task or leaving the loop stops the install (the next one resumes).
    public func statusUpdates(into destination: String, trust: ManifestTrust, options: ExpansionOptions = ExpansionOptions(),
                              fetcher: RemoteFetcher = RemoteFetcher(), log: InstallLog? = nil,
                              every interval: Duration = .milliseconds(250)) -> InstallStatusUpdates {
        InstallStatusUpdates(every: interval) { (report, cancellation) throws(AssetPackError) in
            try run(into: destination, trust: trust, options: options, fetcher: fetcher, log: log, cancellation: cancellation,
                    progress: { if let status = InstallUpdate($0) { report(status) } },
                    downloading: { report(.downloading(bytesDone: $0, bytesTotal: $1)) })
        }
    }

    /// ``install(into:trust:options:fetcher:log:)`` on the calling thread, which blocks until it ends (a command
    /// line's main thread; never the cooperative pool), `progress` told of the bytes written and files done as
    /// `AssetInstaller.installSynchronously(progress:cancellation:)` tells them. Setting `cancellation` stops it
    /// at the next file or block, fetches in flight included, with `AssetPackError/Code/cancelled`.
    @discardableResult
    public func installSynchronously(into destination: String, trust: ManifestTrust,
                                     options: ExpansionOptions = ExpansionOptions(),
                                     fetcher: RemoteFetcher = RemoteFetcher(),
                                     progress: (@Sendable (ExpansionProgress) -> Void)? = nil, log: InstallLog? = nil,
                                     cancellation: ExpansionCancellation = ExpansionCancellation())
        throws(AssetPackError) -> ExpansionResult {
        try run(into: destination, trust: trust, options: options, fetcher: fetcher, log: log, cancellation: cancellation,
                progress: progress, downloading: nil)
    }

    /// The install: `downloading`, when given, is told the bytes of file data received and the plan's total.
    private func run(into destination: String, trust: ManifestTrust, options: ExpansionOptions, fetcher: RemoteFetcher,
                     log: InstallLog?, cancellation: ExpansionCancellation, progress: (@Sendable (ExpansionProgress) -> Void)?,
                     downloading: (@Sendable (UInt64, UInt64) -> Void)?) throws(AssetPackError) -> ExpansionResult {
        var (identity, server) = try pointer(with: fetcher, cancellation), restarts = 0
        while true {
            if let done = try AssetInstaller.upToDateResult(identity: identity, destination: destination) { return done }
            let spool = ManifestSpool(file: try AssetInstaller.manifestSpool(for: destination),
                                      origin: server.url(of: BundleManifest.path).absoluteString)
            let verified = try server.manifest(with: fetcher, trust: trust, into: spool, cancellation)
            let make = { (network: FetchProgress?) throws(AssetPackError) -> AssetInstaller in
                try server.installer(of: verified, identity: identity, into: destination, options: options,
                                     fetcher: fetcher, network: network, cancellation: cancellation)
            }
            var installer = try make(nil)
            if fetcher.options.consent != nil || downloading != nil {
                let total = try consented(installer.dryRun(), fetcher.options.consent).bytesToFetch ?? 0
                if let downloading { installer = try make(FetchProgress { downloading(min($0.completed, total), total) }) }
            }
            installer.log = log
            do {
                return try installer.installSynchronously(progress: progress, cancellation: cancellation)
            } catch where error.code == .verification && restarts < fetcher.options.retry.maxMismatches {
                identity = try server.moved(from: identity, after: error, fetcher, cancellation)
                restarts += 1
            }
        }
    }

    /// `plan`, when `consent` allows it (or it is not above its threshold); else the `declined` error.
    private func consented(_ plan: InstallPreview, _ consent: DownloadConsent?) throws(AssetPackError) -> InstallPreview {
        guard let consent, let bytes = plan.bytesToFetch, bytes > consent.threshold, !consent.allows(plan) else { return plan }
        throw AssetPackError(.declined, "declined: the update would fetch \(bytes) bytes in \(plan.requestsToFetch ?? 0) requests, "
                             + "more than the \(consent.threshold) allowed without consent; nothing was written", path: root.absoluteString)
    }

    /// The bundle's new identity after an install ended in `error` (bytes that never matched the manifest) because
    /// it was published again meanwhile, which validators can hide (nginx's ETag is a file's time and size); else
    /// `error`, saying that the server or a cache in front of it serves bytes its manifest does not list.
    private func moved(from identity: String, after error: AssetPackError, _ fetcher: RemoteFetcher,
                       _ cancellation: ExpansionCancellation) throws(AssetPackError) -> String {
        let now = try RemoteBundle(root).pointer(with: fetcher, cancellation).identity
        guard now == identity else { return now }
        var error = error
        error.message += " (the bundle was not published again meanwhile: the server, or a cache in front of it, serves "
            + "other bytes than its manifest lists, e.g. an older copy)"
        throw error
    }

    /// What ``installSynchronously(into:trust:options:fetcher:progress:log:cancellation:)`` would do now
    /// (`assetpack expand URL --dry-run`), writing nothing beside `destination`: fetches the identity and, unless the
    /// destination holds it, the manifest (into an unlinked temporary file, checked against `trust`) and its
    /// signature, and plans them as the install would (`AssetInstaller.dryRun()`), before any file data.
    ///
    /// Its `bytesToFetch` and `requestsToFetch` are, exactly, what the install would then download when nothing
    /// fails and the bundle is not published again meanwhile: worked out by the code that fetches (files the
    /// installed tree holds unchanged are linked, blocks of a block-indexed file it holds are copied, what an
    /// interrupted install left in staging is kept, small packed files close together come in one request, a
    /// request spans at most ``FetchOptions/maxRequestBytes``). Its `manifestBytes` and `manifestRequests` count
    /// the identity, manifest and signature this call fetched, which the install fetches again.
    /// - Throws: as the install would before it writes: `untrusted`, `network`, `manifest`, a refused destination.
    public func dryRun(into destination: String, trust: ManifestTrust, options: ExpansionOptions = ExpansionOptions(),
                       fetcher: RemoteFetcher = RemoteFetcher()) throws(AssetPackError) -> InstallPreview {
        let cancellation = ExpansionCancellation()
        let pointers = FetchProgress()
        let (identity, server) = try pointer(with: fetcher, cancellation, progress: pointers)
        var preview: InstallPreview
        if let current = try AssetInstaller.upToDateDestination(identity: identity, destination: destination) {
            preview = InstallPreview(destination: current, upToDate: true)
            (preview.bytesToFetch, preview.requestsToFetch) = (0, 0)
        } else {
            let spool = try ManifestSpool(temporaryFor: server.url(of: BundleManifest.path).absoluteString)
            let verified = try server.manifest(with: fetcher, trust: trust, into: spool, cancellation,
                                               progress: pointers)
            preview = try server.installer(of: verified, identity: identity, into: destination, options: options,
                                           fetcher: fetcher, network: nil, cancellation: cancellation).dryRun()
        }
        (preview.manifestBytes, preview.manifestRequests) = (pointers.snapshot.received, pointers.snapshot.items)
        return preview
    }

    /// The installer of this bundle into `destination` from its manifest `verified` (checked against the trust and
    /// against `identity`, the identity fetched first); `network` counts the bytes of file data received.
    private func installer(of verified: VerifiedManifest, identity: String, into destination: String, options: ExpansionOptions,
                           fetcher: RemoteFetcher, network: FetchProgress?,
                           cancellation: ExpansionCancellation) throws(AssetPackError) -> AssetInstaller {
        let delivery = RemoteBundleDelivery(bundle: self, fetcher: fetcher, progress: network, cancellation: cancellation)
        var options = options
        options.jobs = max(options.jobs, delivery.concurrency)
        let source = DeliveredBundleSource(manifest: verified.file, identity: identity, delivery: delivery, installedTree: destination,
                                           seedFolders: fetcher.options.seedFolders)
        return try AssetInstaller(source: source, destination: destination, options: options)
    }
}
