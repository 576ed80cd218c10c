/// How hard an expansion works to make the finished tree survive a power loss (see
/// ``ExpansionOptions/durability``).
///
/// Every expansion is **crash-safe** whatever this says: when the process is killed at any point
/// (`kill -9`, the system ending a backgrounded app, a crash), the destination holds either its previous
/// complete tree or the new complete one, and the next call resumes from the files already verified.
/// That needs no flush at all, because what a process wrote lives on in the kernel's page cache.
///
/// A **power loss** (a phone's battery dying at first launch, a kernel panic) is different: whatever the
/// kernel had not yet written to the device is lost, and file systems may persist a rename or a small
/// record file before the data blocks of the files it describes. Without a flush, the tree could come back
/// switched in and recorded complete while some of its files are empty, short or full of zeros — and the
/// next launch, finding the record, would trust them.
public enum Durability: String, Sendable, Hashable {
    /// The default. Once every file is written and verified, the staging tree is flushed to the device:
    /// `fsync(2)` of each of its files and folders, or one `syncfs(2)` when the whole system has so little
    /// waiting for write-back that it costs less (it would also wait for other programs' writes); and only
    /// then is the record that marks the tree complete written and flushed, and the tree switched in (and
    /// the switch flushed). After a power loss at any point the destination holds the previous tree or the
    /// complete new one; an interrupted staging tree is re-verified before anything in it is kept.
    ///
    /// The cost is the device's write-back of what was written, which `unzip`, `tar` or `cp` leave to the
    /// kernel. To overlap it with the expansion, write-back of a large file is started every 32 MiB, and
    /// of every file of 64 KiB or more when it is finished; and when the final flush is one `syncfs`, a
    /// helper thread runs it every 100 ms while the files are written. So the final flush has little left
    /// to do.
    case flushOnCommit
    /// Flush nothing and leave write-back to the kernel, as `unzip`, `tar` and `cp` do: faster, and still
    /// crash-safe. After a power loss within the kernel's write-back delay (about 30 s on Linux) the tree
    /// may be recorded complete over files that are empty or partial. For command-line use, tests and
    /// rebuildable caches, or when the caller flushes the file system itself.
    case none
}
