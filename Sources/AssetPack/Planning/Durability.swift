/// How hard an expansion works to make the finished tree survive a power loss (see
/// ``ExpansionOptions/durability``).
///
/// Every expansion is **crash-safe** whatever this says: when the process is killed at any point
/// (`kill -9`, the system ending a backgrounded app, a crash), the destination holds either its previous
/// complete tree or the new complete one, and the next call resumes from the files already verified.
/// That needs no flush at all, because what a process wrote lives on in the kernel's page cache.
///
/// A **power loss** is different: file systems may persist a rename or a small record file before the data
/// blocks it describes, so without a flush the tree could come back recorded complete over empty or short files.
public enum Durability: String, Sendable, Hashable {
    /// The default. Once every file is written and verified, the staging tree is flushed to the device:
    /// `fsync(2)` of each of its files and folders, or one `syncfs(2)` when the whole system has so little
    /// waiting for write-back that it costs less (it would also wait for other programs' writes); and only
    /// then is the record that marks the tree complete written and flushed, and the tree switched in (and
    /// the switch flushed). After a power loss at any point the destination holds the previous tree or the
    /// complete new one; an interrupted staging tree is re-verified before anything in it is kept.
    /// Write-back is started as files are written, so the final flush has little left (<doc:CrashSafety>).
    case flushOnCommit
    /// Flush nothing and leave write-back to the kernel, as `unzip`, `tar` and `cp` do: faster, and still
    /// crash-safe. After a power loss within the kernel's write-back delay (about 30 s on Linux) the tree
    /// may be recorded complete over files that are empty or partial. For command-line use, tests and
    /// rebuildable caches, or when the caller flushes the file system itself.
    case none
}
