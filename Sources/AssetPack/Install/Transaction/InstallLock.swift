import AssetPackSystem

/// Serializes installs into one destination across threads and processes: an exclusive `flock` on the
/// destination's parent folder, held for the whole install. Nothing is created for it, so nothing is
/// left behind, and the kernel drops it when a holder dies. Installs into other destinations in the same
/// parent wait too, which is harmless (first launch runs one install at a time anyway).
final class InstallLock {
    private let folder: Descriptor

    /// Waits until the lock on `folder` is free, then holds it until ``release()`` or deinit.
    init(_ folder: Descriptor) throws(AssetPackError) {
        self.folder = folder
        try io(folder.fd.lockExclusive(path: folder.path))
    }

    /// Lets the next waiter in.
    func release() { folder.fd.unlock() }

    deinit { release() }
}
