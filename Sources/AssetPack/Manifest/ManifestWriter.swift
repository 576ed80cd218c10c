import Foundation

extension BundleManifest {
    /// The manifest as deterministic JSON: sorted keys, no white space inside a value, one entry per line
    /// (so line tools and diffs still work on it), trailing newline. The text `Writer` writes, kept in memory.
    /// - Throws: `.limitExceeded` when the text would be longer than ``maxEncodedSize``, which no reader
    ///   would take: a bundle that could not be expanded is not written.
    public func encodedJSON() throws(AssetPackError) -> [UInt8] {
        try encodedJSON(limit: Self.maxEncodedSize)
    }

    /// ``encodedJSON()`` with another limit (tests).
    func encodedJSON(limit: Int) throws(AssetPackError) -> [UInt8] {
        let text = TextBuffer()
        var writer = Writer(limit: limit) { (bytes) in text.bytes += bytes }
        for index in entries.indices { try writer.add(entries[index]) }
        try writer.finish(self)
        return text.bytes
    }

    /// Writes the text of ``encodedJSON()`` front to back, one entry at a time, handing it to `output` in
    /// pieces of about 64 KiB, never held whole. The members after
    /// `"entries"` (which sorts first) are written last, so the content identity can be worked out on the
    /// way (``identity()``) when the entries come in path order.
    package struct Writer {
        private let limit: Int
        private let output: (_ bytes: [UInt8]) throws(AssetPackError) -> Void
        private let encoder = JSONEncoder()
        private var pending: [UInt8] = Array(#"{"entries":["#.utf8)
        private var entryCount = 0
        /// Bytes handed to the output so far.
        package private(set) var size = 0
        private var running = ContentIdentity.Running()

        /// A writer that refuses a text longer than `limit` bytes and hands the text to `output`.
        package init(limit: Int = BundleManifest.maxEncodedSize,
                     output: @escaping (_ bytes: [UInt8]) throws(AssetPackError) -> Void) {
            self.limit = limit
            self.output = output
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        }

        /// Writes the next entry, on a line of its own.
        /// - Throws: `.manifest` when it cannot be encoded, `.limitExceeded` past the limit, what `output` throws.
        package mutating func add(_ entry: Entry) throws(AssetPackError) {
            pending += entryCount == 0 ? [0x0A] : [UInt8(ascii: ","), 0x0A]
            do { pending += try encoder.encode(entry) } catch {
                throw AssetPackError(.manifest, "cannot encode the manifest: \(error)")
            }
            entryCount += 1
            running.add([entry])
            if pending.count >= 64 << 10 { try flush() }
        }

        /// The content identity of the entries written (``ContentIdentity``); call it once, after the last.
        /// - Throws: `.manifest` when they were not written in path order.
        package mutating func identity() throws(AssetPackError) -> String {
            guard let identity = running.finalizeHex() else {
                throw AssetPackError(.manifest, "cannot write the manifest: its entries are not in path order")
            }
            return identity
        }

        /// Writes the other members of `header` (its entries are not looked at) and the end of the text.
        package mutating func finish(_ header: BundleManifest) throws(AssetPackError) {
            var rest = header
            rest.entries = []
            let members: [UInt8]
            do { members = Array(try encoder.encode(rest)) } catch {
                throw AssetPackError(.manifest, "cannot encode the manifest: \(error)")
            }
            let opening = Array(#"{"entries":[]"#.utf8)
            guard members.starts(with: opening) else {
                throw AssetPackError(.manifest, "cannot encode the manifest: its members do not start with \"entries\"")
            }
            if entryCount > 0 { pending.append(0x0A) }
            pending.append(UInt8(ascii: "]"))
            pending += members[opening.count...]
            pending.append(0x0A)
            try flush()
        }

        /// Hands the pending text to the output, unless the whole would pass the limit.
        private mutating func flush() throws(AssetPackError) {
            size += pending.count
            guard size <= limit else {
                throw AssetPackError(.limitExceeded, "the manifest would take more than the "
                                     + "\(ByteCount.text(UInt64(limit))) a reader accepts (passed at \(entryCount) entries): split the tree into several bundles")
            }
            try output(pending)
            pending.removeAll(keepingCapacity: true)
        }
    }
}

/// Bytes collected by a closure.
private final class TextBuffer {
    var bytes: [UInt8] = []
}
