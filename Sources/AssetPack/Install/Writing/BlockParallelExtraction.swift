import AssetPackSystem
import AssetPackZip

/// Writes a packed file whose manifest records a block index on several threads: ``BlockParallelInflater``
/// inflates the blocks at once and writes each at its offset in the file. It checks the index against the
/// entry before reading, every block against the index with a ``CheckedStream`` of its own, and their
/// combined CRC-32s (`crc32_combine`) against the entry, which is checked against the plan first; a
/// mismatch is the streamed path's error (``WriteCheck/mismatch(_:path:origin:entry:)``). An index that
/// does not fit is an error (a damaged manifest), never a silent fallback.
///
/// Each block written is recorded in a ``BlockJournal`` beside the file, so an interrupted run resumes:
/// the recorded blocks are read back into the combined check, and when they do not check out, the file is
/// written again from the start.
enum BlockParallelExtraction {
    /// Write-back is started after every this many bytes when asked for: a large file is then already
    /// mostly on disk when it is finished.
    static let writebackInterval: UInt64 = 32 << 20

    /// Writes `item` into `file` (named `name` in `folder`) and returns its CRC-32 when it is an
    /// archive entry with a block index; nil for any other item, which the caller streams. `kept`: blocks
    /// an interrupted run wrote into `file` (from its journal; empty for a new file). `reportsBytes`: tell
    /// `progress` about bytes as they are written (else the caller reports the file when it is done);
    /// `startsWriteback`: start write-back of what was written every ``writebackInterval`` bytes.
    static func write(_ item: ExpansionItem, into file: Descriptor, named name: String, in folder: Descriptor, keeping kept: Set<Int>,
                      progress: ProgressTracker, reportsBytes: Bool, startsWriteback: Bool) throws(AssetPackError) -> UInt32? {
        guard let layout = item.blocks, case .zipEntry(let handle, let entryName) = item.origin else { return nil }
        let archive = try handle.archive()
        let origin = handle.location
        let entry = try ItemSource.checkedEntry(entryName, of: archive, origin: origin, for: item)
        try progress.checkCancelled()
        let inflater: BlockParallelInflater
        do {
            inflater = try BlockParallelInflater(archive: archive, entry: entry, index: DeflateBlockIndex(pairs: layout.pairs))
        } catch {
            throw origin.error(error)
        }
        let journal: BlockJournal
        if !kept.isEmpty, let existing = try BlockJournal.open(for: name, in: folder) {
            journal = existing
        } else {
            journal = try BlockJournal.create(for: name, in: folder)
        }
        let pacer = WritebackPacer(descriptor: startsWriteback ? file.fd : nil)
        let run = { (kept: Set<Int>) throws(ZipError) -> UInt32 in
            try inflater.inflate(into: file.fd.rawValue, path: file.path, jobs: layout.jobs, keeping: kept,
                                 blocksWritten: { numbers in try? journal.record(numbers) },
                                 progress: { bytes in
                                     if reportsBytes { progress.advance(bytes: bytes) }
                                     pacer.wrote(bytes)
                                     return (try? progress.checkCancelled()) != nil
                                 })
        }
        var crc: UInt32?
        if !kept.isEmpty {
            do throws(ZipError) {
                crc = try run(kept)
                let keptBytes = kept.reduce(UInt64(0)) { $0 + UInt64(inflater.spans[$1].uncompressed.count) }
                progress.resumed(bytes: reportsBytes ? keptBytes : 0)
            } catch where error.code == .checksum || error.code == .truncated {
                // The kept blocks are not what the entry holds (a crash of the machine can lose data that
                // the journal says was written): start over.
                try journal.clear()
                try io(file.fd.truncate(to: 0, path: file.path))
            } catch {
                throw try failure(error, of: item, origin: origin, progress: progress)
            }
        }
        if crc == nil {
            do throws(ZipError) { crc = try run([]) } catch { throw try failure(error, of: item, origin: origin, progress: progress) }
        }
        return crc  // the inflater checked it against the entry's, which is the plan's
    }

    /// The error to throw for `error` of the inflater: the tracker's own when it was a cancellation.
    private static func failure(_ error: ZipError, of item: ExpansionItem, origin: ErrorLocation,
                                progress: ProgressTracker) throws(AssetPackError) -> AssetPackError {
        if error.code == .cancelled { try progress.checkCancelled() }
        return WriteCheck.mismatch(error, path: item.path, origin: origin, entry: error.entry)
    }
}

/// Starts write-back of a file every ``BlockParallelExtraction/writebackInterval`` bytes written to it,
/// from whichever thread wrote them.
private final class WritebackPacer: @unchecked Sendable {
    private let descriptor: FileDescriptor?
    private let monitor = Monitor()
    private var pending: UInt64 = 0

    init(descriptor: FileDescriptor?) { self.descriptor = descriptor }

    func wrote(_ bytes: UInt64) {
        guard let descriptor else { return }
        let due: Bool = monitor.withLock {
            pending += bytes
            guard pending >= BlockParallelExtraction.writebackInterval else { return false }
            pending = 0
            return true
        }
        if due { descriptor.startWriteback() }
    }
}
