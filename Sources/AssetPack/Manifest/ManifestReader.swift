import AssetPackSystem
import AssetPackZip

/// Reads a bundle's manifest from its JSON text with the one tokenizer (``JSONPullParser``), a chunk at a time:
/// any layout and member order; unknown members skipped; a known member given twice refused (a signed manifest
/// must mean one thing to every reader). Entries come out in runs of ``runSize``, checked to be in path order
/// (the identity is a hash over that order); a manifest out of order is refused, naming the first entry out of
/// place. Every fault is one `.manifest` error naming a byte offset or an entry's path.
final class ManifestReader {
    /// Bytes read from a stream at a time.
    static let chunkSize = 256 << 10
    /// Entries handed on at a time.
    static let runSize = 4096

    private let parser: JSONPullParser
    private let origin: String
    private var format: Int?, identity: String?, threshold: UInt64?, generator: String?, packing: String?
    /// The top-level members read (bits of ``TopMember``).
    private var seen: UInt8 = 0
    /// Whether the entries array is being read, and whether the manifest's object has closed.
    private var inEntries = false, closed = false
    /// The last entry's path (for the order), and the archive and method the last packed entry named: strings
    /// that consecutive entries share rather than each making its own.
    private var lastPath: String?, lastFile: String?, lastMethod: String?

    private enum TopMember: UInt8 { case format = 1, identity = 2, threshold = 4, generator = 8, entries = 16, packing = 32 }

    /// A reader of the text `parser` reads, from the manifest at `origin`.
    init(_ parser: JSONPullParser, origin: String) throws(AssetPackError) {
        (self.parser, self.origin) = (parser, origin)
        try parser.enterObject()
    }

    /// The offset in the text reached.
    var offset: Int { parser.offset }

    /// The next entries (at most ``runSize``), the members around them read as they come; empty once the
    /// manifest has been read to its end.
    func nextRun() throws(AssetPackError) -> [BundleManifest.Entry] {
        var run: [BundleManifest.Entry] = []
        run.reserveCapacity(Self.runSize)
        while !closed && run.count < Self.runSize {
            if inEntries {
                if try parser.nextElement() {
                    run.append(try entry())
                    continue
                }
                inEntries = false
            }
            try topMember()
        }
        return run
    }

    /// The manifest's members other than its entries, once ``nextRun()`` came back empty.
    func manifest() throws(AssetPackError) -> BundleManifest {
        guard let format, let identity, let threshold, let generator, seen & TopMember.entries.rawValue != 0 else {
            let missing = ["format": format == nil, "identity": identity == nil, "threshold": threshold == nil,
                           "generator": generator == nil, "entries": seen & TopMember.entries.rawValue == 0]
            throw AssetPackError(.manifest, "the manifest lacks \"\(missing.filter(\.value).keys.sorted().joined(separator: "\", \""))\"",
                                 path: origin)
        }
        return BundleManifest(format: format, identity: identity, threshold: threshold, generator: generator, packing: packing)
    }

    /// Reads the next top-level member (the entries array is only entered), or the end of the manifest.
    private func topMember() throws(AssetPackError) {
        guard let name = try parser.nextMember() else {
            try parser.finish()
            closed = true
            return
        }
        switch name {
        case "entries":
            try once(.entries, "entries")
            try parser.enterArray()
            inEntries = true
        case "format":
            try once(.format, "format")
            format = Int(try parser.unsigned(max: UInt64(Int.max)))
        case "identity":
            try once(.identity, "identity")
            identity = try parser.string()
        case "threshold":
            try once(.threshold, "threshold")
            threshold = try parser.unsigned(max: .max)
        case "generator":
            try once(.generator, "generator")
            generator = try parser.string()
        case "packing":
            try once(.packing, "packing")
            packing = try optionalString()
        default: try parser.skipValue()
        }
    }

    private func once(_ member: TopMember, _ name: StaticString) throws(AssetPackError) {
        try once(&seen, member.rawValue, name)
    }

    /// Marks `bit` in `seen`, refusing a member given twice.
    private func once<Bits: FixedWidthInteger>(_ seen: inout Bits, _ bit: Bits, _ name: StaticString) throws(AssetPackError) {
        guard seen & bit == 0 else { throw parser.refusal("the member \"\(name)\" is given twice") }
        seen |= bit
    }

    /// The entry object that comes next, checked to come after the one before.
    private func entry() throws(AssetPackError) -> BundleManifest.Entry {
        try parser.enterObject()
        var path: String?, kind: BundleManifest.Kind?, size: UInt64?, crc32: UInt32?, storage: BundleManifest.Storage?
        var mode: UInt32?, sha256: String?
        var seen: UInt8 = 0
        while let name = try parser.nextMember() {
            switch name {
            case "crc32":
                try once(&seen, 1, "crc32")
                crc32 = try optionalUnsigned(UInt64(UInt32.max)).map(UInt32.init)
            case "kind":
                try once(&seen, 2, "kind")
                kind = try word("kind", ["file": BundleManifest.Kind.file, "directory": .directory])
            case "mode":
                try once(&seen, 4, "mode")
                mode = try optionalUnsigned(UInt64(UInt32.max)).map(UInt32.init)
            case "path":
                try once(&seen, 8, "path")
                path = try parser.string()
            case "sha256":
                try once(&seen, 16, "sha256")
                sha256 = try optionalString()
            case "size":
                try once(&seen, 32, "size")
                size = try optionalUnsigned(.max)
            case "storage":
                try once(&seen, 64, "storage")
                storage = try parser.takeNull() ? nil : try self.storage(entryPath: path)
            default: try parser.skipValue()
            }
        }
        guard let path, let kind else { throw parser.refusal("an entry lacks \"path\" or \"kind\"") }
        if let lastPath, Memory.bytesPrecede(path, lastPath) {
            throw AssetPackError(.manifest, "the entries are not in path order: \"\(path)\" comes after \"\(lastPath)\"", path: origin)
        }
        lastPath = path
        return BundleManifest.Entry(path: path, kind: kind, size: size, crc32: crc32, storage: storage, mode: mode, sha256: sha256)
    }

    /// The storage object that comes next, of the entry at `entryPath` (when its path came first, as the
    /// packer writes it: a packed entry's name is usually its path, then shared).
    private func storage(entryPath: String?) throws(AssetPackError) -> BundleManifest.Storage {
        try parser.enterObject()
        var form: BundleManifest.Storage.Form?, file: String?, entry: String?, method: String?, compressedSize: UInt64?
        var blocks: [[UInt64]]?, blockSHA256: [String]?, dataOffset: UInt64?, chunking: String?
        var patches: BundleManifest.Storage.Patches?
        var seen: UInt16 = 0
        while let name = try parser.nextMember() {
            switch name {
            case "compressedSize":
                try once(&seen, 1, "compressedSize")
                compressedSize = try optionalUnsigned(.max)
            case "dataOffset":
                try once(&seen, 2, "dataOffset")
                dataOffset = try optionalUnsigned(.max)
            case "entry":
                try once(&seen, 4, "entry")
                entry = try optionalString(reusing: entryPath)
            case "file":
                try once(&seen, 8, "file")
                file = try parser.string(reusing: lastFile)
                lastFile = file
            case "form":
                try once(&seen, 16, "form")
                form = try word("form", ["packed": BundleManifest.Storage.Form.packed, "plain": .plain])
            case "method":
                try once(&seen, 32, "method")
                method = try optionalString(reusing: lastMethod)
                if method != nil { lastMethod = method }
            case "blocks":
                try once(&seen, 64, "blocks")
                blocks = try parser.takeNull() ? nil : try array { () throws(AssetPackError) in
                    try array { () throws(AssetPackError) in try parser.unsigned(max: .max) }
                }
            case "blockSHA256":
                try once(&seen, 128, "blockSHA256")
                blockSHA256 = try parser.takeNull() ? nil : try array { () throws(AssetPackError) in try parser.string() }
            case "chunking":
                try once(&seen, 256, "chunking")
                chunking = try optionalString()
            case "patches":
                try once(&seen, 512, "patches")
                patches = try parser.takeNull() ? nil : try self.patches()
            default: try parser.skipValue()
            }
        }
        guard let form, let file else { throw parser.refusal("a storage lacks \"form\" or \"file\"") }
        return BundleManifest.Storage(form: form, file: file, entry: entry, method: method, compressedSize: compressedSize,
                                      blocks: blocks, blockSHA256: blockSHA256, dataOffset: dataOffset, chunking: chunking,
                                      patches: patches)
    }

    /// The patches object that comes next (``BundleManifest/Storage/patches``).
    private func patches() throws(AssetPackError) -> BundleManifest.Storage.Patches {
        try parser.enterObject()
        var file: String?, baseSHA256: String?, baseSize: UInt64?, runs: [[UInt64]]?
        var seen: UInt16 = 0
        while let name = try parser.nextMember() {
            switch name {
            case "file":
                try once(&seen, 1, "file")
                file = try parser.string()
            case "baseSHA256":
                try once(&seen, 2, "baseSHA256")
                baseSHA256 = try parser.string()
            case "baseSize":
                try once(&seen, 4, "baseSize")
                baseSize = try parser.unsigned(max: .max)
            case "runs":
                try once(&seen, 8, "runs")
                runs = try array { () throws(AssetPackError) in
                    try array { () throws(AssetPackError) in try parser.unsigned(max: .max) }
                }
            default: try parser.skipValue()
            }
        }
        guard let file, let baseSHA256, let baseSize, let runs else {
            throw parser.refusal("a storage's patches lack \"file\", \"baseSHA256\", \"baseSize\" or \"runs\"")
        }
        return BundleManifest.Storage.Patches(file: file, baseSHA256: baseSHA256, baseSize: baseSize, runs: runs)
    }

    /// `null` as nil, else a string (`previous` itself when it spells the same).
    private func optionalString(reusing previous: String? = nil) throws(AssetPackError) -> String? {
        try parser.takeNull() ? nil : try parser.string(reusing: previous)
    }

    /// `null` as nil, else an unsigned integer at most `max`.
    private func optionalUnsigned(_ max: UInt64) throws(AssetPackError) -> UInt64? {
        try parser.takeNull() ? nil : try parser.unsigned(max: max)
    }

    /// The value of the string coming next, the member `member`'s, among `words` (a literal: no array made).
    @inline(__always) private func word<Value>(_ member: StaticString, _ words: KeyValuePairs<StaticString, Value>) throws(AssetPackError) -> Value {
        let at = parser.offset
        let name = try parser.name()
        for (word, value) in words where word ~= name { return value }
        throw AssetPackError(.manifest, "\"\(member)\" is not \"\(words.map { "\($0.key)" }.joined(separator: "\" or \""))\" at byte \(at)",
                             path: origin)
    }

    /// The array that comes next, each element read by `element`.
    private func array<Element>(_ element: () throws(AssetPackError) -> Element) throws(AssetPackError) -> [Element] {
        try parser.enterArray()
        var elements: [Element] = []
        while try parser.nextElement() { elements.append(try element()) }
        return elements
    }
}

extension BundleManifest {
    /// Reads the manifest from `stream` a chunk at a time (``ManifestReader``), each run of entries checked
    /// (``checkEntries(_:origin:)``) and handed to `sink` while helper threads hash it and read the next run;
    /// then checks the format and the identity, and only then throws what `sink` threw (so a forged manifest
    /// is reported as such). `expectedSize` lets the first run say about how many entries there are. Returns
    /// the manifest without its entries.
    static func read(_ stream: any ByteStream, expectedSize: UInt64?, origin: String,
                     into sink: any ManifestEntrySink) throws(AssetPackError) -> BundleManifest {
        let parser = JSONPullParser(chunkSize: ManifestReader.chunkSize, limit: maxEncodedSize, code: .manifest, origin: origin) {
            (buffer) throws(AssetPackError) -> Int in
            try zipLayer(stream.read(into: buffer), path: origin)
        }
        let reader = try ManifestReader(parser, origin: origin)
        let running = RunningIdentity()
        let next = NextRun(reader)
        var refused: AssetPackError?
        var run = try reader.nextRun()
        var expectedCount = expectedSize.map { Self.estimatedCount(read: run.count, bytes: reader.offset, of: $0) }
        while !run.isEmpty {
            // Three at once: this thread checks the run and hands it on, a helper reads the next, another adds
            // this one to the identity. The run's faults come first: they are earlier in the text.
            let current = run
            try WorkerThreads.withHelpers(2, helper: { (helper) in
                if helper == 0 { next.read() } else { running.identity.add(current) }
            }) { () throws(AssetPackError) in
                try checkEntries(current, origin: origin)
                if refused == nil {
                    do throws(AssetPackError) { try sink.take(current, expectedCount: expectedCount) } catch { refused = error }
                }
            }
            expectedCount = nil
            run = try next.result.get()
        }
        let manifest = try reader.manifest()
        try manifest.checkFormat(origin: origin)
        if running.identity.finalizeHex() != manifest.identity { throw identityMismatch(origin: origin) }
        if let refused { throw refused }
        return manifest
    }

    /// About how many entries a manifest of `size` bytes holds, from the first `read` entries in `bytes`
    /// bytes, with a little to spare (an entry list that must grow holds up to twice as much for a while).
    private static func estimatedCount(read: Int, bytes: Int, of size: UInt64) -> Int {
        guard read > 0, bytes > 0 else { return 0 }
        return Int(min(Double(size) / (Double(bytes) / Double(read)) * 1.02, Double(maxEncodedSize))) + 16
    }

    /// Throws `.manifest` for a format this code does not read.
    func checkFormat(origin: String) throws(AssetPackError) {
        guard Self.readableFormats.contains(format) else {
            throw AssetPackError(.manifest, "manifest format \(format) is not supported (this reads formats "
                                 + "\(Self.readableFormats.lowerBound) to \(Self.readableFormats.upperBound))", path: origin)
        }
    }

    /// Checks entries of a manifest: valid paths, files with size, CRC and storage, and well-formed hashes.
    static func checkEntries(_ entries: [Entry], origin: String) throws(AssetPackError) {
        // By index, each entry read in place: a copy of each would retain and release its strings.
        for index in entries.indices {
            do {
                _ = try AssetPath(entries[index].path)
            } catch {
                throw AssetPackError(.manifest, "manifest lists an \(error.message)", path: origin)
            }
            if entries[index].kind == .file, entries[index].size == nil || entries[index].crc32 == nil || entries[index].storage == nil {
                throw AssetPackError(.manifest, "manifest entry \"\(entries[index].path)\" lacks size, CRC-32 or storage", path: origin)
            }
            try entries[index].checkHashes(origin: origin)
        }
    }

    /// A manifest of exactly these members, as read (no entries, no identity computed).
    fileprivate init(format: Int, identity: String, threshold: UInt64, generator: String, packing: String?) {
        (self.format, self.identity, self.threshold, self.generator, self.entries) = (format, identity, threshold, generator, [])
        self.packing = packing
    }
}

/// The run after the one in hand, read by a helper thread while this one is handed on (the reader is used by
/// one thread at a time: the helper is joined before it is touched again).
private final class NextRun: @unchecked Sendable {
    private let reader: ManifestReader
    /// The run read, or why it could not be.
    private(set) var result: Result<[BundleManifest.Entry], AssetPackError> = .success([])

    init(_ reader: ManifestReader) { self.reader = reader }

    func read() { result = Result { () throws(AssetPackError) in try reader.nextRun() } }
}

/// The identity of a manifest being read: added to by one thread at a time (the helper of each run),
/// read once the last has been joined.
private final class RunningIdentity: @unchecked Sendable {
    var identity = ContentIdentity.Running()
}
