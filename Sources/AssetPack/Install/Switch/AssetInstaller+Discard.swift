import AssetPackSystem

extension AssetInstaller {
    /// Removes what an unfinished install left beside the destination — the hidden staging tree
    /// `.<name>.assetpack-staging` (its verified files would otherwise be resumed by the next
    /// ``installSynchronously(progress:cancellation:)``) and a previous tree left by an interrupted switch — so that the
    /// next install starts afresh. The installed destination itself is never touched; when a crash left no
    /// destination but its previous tree aside (a file system that cannot swap two names), that tree is put
    /// back as the destination.
    ///
    /// Waits for an install into the same folder to finish first (the same lock). Use it when an app gives
    /// up on a source for good (a download it will not retry) and wants the space back; a failure the next
    /// call cannot resume already removes its staging tree by itself (see the type's notes).
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
        if try io(parent.status(staging)) != nil {
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
