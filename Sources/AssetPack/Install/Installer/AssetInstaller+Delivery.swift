import AssetPackSystem
import AssetPackZip

extension AssetInstaller {
    /// What an install of the packed bundle whose identity is `identity` (``BundleManifest/identity``, as its
    /// small `assetpack-meta/identity` file says) into `destination` finds when the destination already holds
    /// it, complete: the ``ExpansionResult/upToDate`` result ``install(progress:)`` would return. Nil when it
    /// would have work to do.
    ///
    /// This is ``isUpToDate()`` for a bundle that is not here yet: a client learns that nothing changed from the
    /// identity alone, before it fetches a manifest. The previous tree a delivered install leaves beside the
    /// destination is removed here, under the install lock.
    /// - Throws: ``AssetPackError/Code/invalidArgument`` when `destination` cannot be a destination; an I/O
    ///   error from removing the previous tree.
    public static func upToDateResult(identity: String, destination: String) throws(AssetPackError) -> ExpansionResult? {
        let started = SystemClock.monotonicSeconds()
        let probe = try AssetInstaller(source: IdentityOnlySource(), destination: destination)
        guard try upToDateDestination(identity: identity, destination: destination) != nil else { return nil }
        if probe.hasPreviousTree { try probe.removeRetiredTree(stamp: identity) }
        return ExpansionResult(destination: probe.destination, upToDate: true, identity: identity,
                               seconds: SystemClock.monotonicSeconds() - started)
    }

    /// The absolute path of `destination` when its record's stamp is `identity` (a bundle's stamp) and no
    /// interrupted install lies beside it; nil otherwise. Reads two small files; writes nothing.
    package static func upToDateDestination(identity: String, destination: String) throws(AssetPackError) -> String? {
        let probe = try AssetInstaller(source: IdentityOnlySource(), destination: destination)
        guard InstallRecord.stamp(atPath: probe.destination) == identity, !probe.hasStagingTree else { return nil }
        return probe.destination
    }

    /// A new, empty file for the manifest of a bundle to be installed into `destination` to be spooled into as
    /// it is fetched (read and written by offset; closed by its owner): made in the staging tree beside the
    /// destination and unlinked at once (a staging tree made for it alone is removed again at once).
    /// - Throws: ``AssetPackError/Code/invalidArgument`` when `destination` cannot be a destination; `.io`.
    package static func manifestSpool(for destination: String) throws(AssetPackError) -> FileDescriptor {
        let probe = try AssetInstaller(source: IdentityOnlySource(), destination: destination)
        let madeParents = try io(FileSystem.makeDirectories(probe.parentPath))
        let parent = try io(Descriptor.directory(probe.parentPath))
        let stagingName = StagingNames.staging(for: probe.name)
        let made = try io(parent.makeDirectory(stagingName, mode: PermissionPolicy.defaultDirectory))
        let staging = try io(parent.directory(stagingName))
        try io(staging.remove(StagingNames.manifestSpool))
        let spool = try io(staging.createFile(StagingNames.manifestSpool, readable: true))
        try io(staging.remove(StagingNames.manifestSpool))
        if made { FileSystem.removeEmptyDirectories(madeParents + [parent.child(stagingName)]) }
        return spool.detach()
    }

    /// Removes the previous tree beside the destination under the install lock, once the destination is
    /// still complete with `stamp` (a tree under the aside name is then never needed again).
    private func removeRetiredTree(stamp: String) throws(AssetPackError) {
        let parent = try io(Descriptor.directory(parentPath))
        let lock = try InstallLock(parent)
        defer { lock.release() }
        guard InstallRecord.stamp(atPath: destination) == stamp else { return }
        try AtomicSwitch.removePrevious(StagingNames.previous(for: name), in: parent)
    }
}

/// A source with nothing in it: what ``AssetInstaller/upToDateResult(identity:destination:)`` resolves the
/// destination with.
private struct IdentityOnlySource: AssetSource {
    var name: String { "-" }
    func list(_ path: AssetPath) throws(AssetPackError) -> [String] { [] }
    func open(_ path: AssetPath) throws(AssetPackError) -> any ByteStream {
        throw AssetPackError(.notFound, "no such file", path: path.string)
    }
}
