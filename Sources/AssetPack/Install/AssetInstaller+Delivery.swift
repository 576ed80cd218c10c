import AssetPackSystem
import AssetPackZip

extension AssetInstaller {
    /// What an install of the packed bundle whose identity is `identity` (``BundleManifest/identity``, as its
    /// small `assetpack-meta/identity` file says) into `destination` finds when the destination already holds
    /// it, complete: the ``ExpansionResult/upToDate`` result ``install(progress:)`` would return. Nil when it
    /// would have work to do.
    ///
    /// This is the check ``isUpToDate()`` makes for a local bundle, for a bundle that is not here yet: it reads
    /// the destination's record stamp (and makes one `stat` each for leftovers of an interrupted call), so a
    /// client learns that nothing changed from the identity alone, before it fetches a manifest.
    /// - Throws: ``AssetPackError/Code/invalidArgument`` when `destination` cannot be a destination.
    public static func upToDateResult(identity: String, destination: String) throws(AssetPackError) -> ExpansionResult? {
        let started = SystemClock.monotonicSeconds()
        let probe = try AssetInstaller(source: IdentityOnlySource(), destination: destination)
        let stamp = ExpansionPlan.manifestStamp(identity)
        guard InstallRecord.stamp(atPath: probe.destination) == stamp, !probe.hasLeftovers else { return nil }
        return ExpansionResult(destination: probe.destination, upToDate: true, identity: stamp,
                               seconds: SystemClock.monotonicSeconds() - started)
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
