import AssetPackZip

/// A manifest held in scratch space — a spool of the bytes fetched — whose bytes the installer drops once it
/// has planned the whole install, before it flushes the tree: a flush of the whole file system (`syncfs`)
/// would otherwise write them to the device, though nobody reads them again (for a small upgrade of a tree of
/// many files, more than the changed files themselves).
package protocol DiscardableManifest: RandomAccessSource {
    /// Drops the bytes (a file is truncated to nothing, so the pages waiting for write-back are let go, never
    /// written). Called once no thread reads the manifest any more; a read afterwards finds no bytes.
    func discard()
}
