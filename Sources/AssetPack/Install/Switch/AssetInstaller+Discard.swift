import AssetPackSystem

extension AssetInstaller {
    /// Removes what an unfinished install left beside the destination — the hidden staging tree
    /// `.<name>.assetpack-staging` and a previous tree left by an interrupted switch — so that the next install
    /// starts afresh. The installed destination is never touched; when a crash left only its previous tree
    /// aside, that tree is put back as the destination. An upgrade in place that began
    /// (``ExpansionOptions/upgradesInPlace``) is finished instead: removing its staging tree would leave the
    /// destination a mix of two versions. Waits for an install into the same folder to finish.
    /// - Returns: true when something was removed or put back; false when there was nothing to discard
    ///   (or the destination's folder does not exist).
    /// - Throws: ``AssetPackError`` naming the path that could not be removed.
    @discardableResult
    public func discardPartialInstall() throws(AssetPackError) -> Bool {
        guard let parent = try io(Descriptor.existingDirectory(atPath: parentPath)) else { return false }
        let lock = try InstallLock(parent)
        defer { lock.release() }
        let staging = StagingNames.staging(for: name), previous = StagingNames.previous(for: name)
        var discarded = false
        if InPlaceUpgrade.isPending(name, in: parent) {
            try InPlaceUpgrade(parent: parent, name: name, durable: options.durability == .flushOnCommit).apply()
            discarded = true
        } else if try io(parent.status(staging)) != nil {
            try io(TreeRemoval.remove(staging, in: parent))
            discarded = true
        }
        guard try io(parent.status(previous)) != nil else { return discarded }
        if try io(parent.status(name)) == nil {
            try io(parent.rename(previous, to: name, in: parent))  // the only complete tree: it stays
        } else {
            try io(TreeRemoval.remove(previous, in: parent))
        }
        return true
    }
}
