import Foundation
import AssetPackSystem

/// The content identity of a logical tree: SHA-256 over one line per entry, in byte order of paths.
/// How files are stored (packed or not, level, block index, offsets) does not change it.
///
/// - Version 1, when no entry has a ``BundleManifest/Entry/sha256``: `assetpack-identity-1` then
///   `kind \t size \t crc32 \t mode \t path \n` per entry. Bundles built before SHA-256s keep the identity
///   they had, so their installs stay up to date.
/// - Version 2, when any entry has one: `assetpack-identity-2` then
///   `kind \t size \t crc32 \t sha256 \t mode \t path \n` (`-` for an entry without a hash), so that two
///   bundles with the same identity have the same bytes, not merely the same (easily forged) CRC-32s.
public enum ContentIdentity {
    /// The identity in `text`: a bundle's identity as printed and recorded, or as earlier versions of assetpack
    /// recorded and printed it (`assetpack-1 manifest <identity>`); any other text as it is.
    public static func current(_ text: String) -> String {
        text.replacingOccurrences(of: "assetpack-1 manifest ", with: "")
    }

    /// The identity of `entries` (any order).
    public static func of(_ entries: [BundleManifest.Entry]) -> String {
        // A manifest's entries are already sorted: then no sorted copy is made.
        let hashed = entries.contains { $0.sha256 != nil }
        var running = Running(hashed: hashed)
        running.add(entries)
        if let identity = running.finalizeHex() { return identity }
        let order = entries.indices.sorted { Memory.bytesPrecede(entries[$0].path, entries[$1].path) }
        var sorted = Running(hashed: hashed)
        for index in order { sorted.add(entries, at: index) }
        return sorted.finalizeHex()!
    }

    /// The identity of entries handed over in path order, a run at a time, as a manifest is read: when
    /// whether any entry has a SHA-256 (which version applies) is not known in advance, the lines of both
    /// versions are hashed until one has.
    struct Running {
        private var hashed: IdentityLines?
        private var plain: IdentityLines?
        /// Whether an entry had a SHA-256; nil while not known (no hash seen yet, and more entries may come).
        private var knownHashed: Bool?
        private var lastPath: String?
        /// False once an entry came before the one handed over just before it: the identity is then not
        /// this order's, and ``finalizeHex()`` gives nil.
        private(set) var inOrder = true

        /// A running identity; `hashed` says which version applies, when the caller knows.
        init(hashed: Bool? = nil) {
            knownHashed = hashed
            if hashed != false { self.hashed = IdentityLines(header: "assetpack-identity-2\n") }
            if hashed != true { plain = IdentityLines(header: "assetpack-identity-1\n") }
        }

        /// Adds `entries`, which follow those added before in path order.
        mutating func add(_ entries: [BundleManifest.Entry]) {
            for index in entries.indices where inOrder { add(entries, at: index) }
        }

        /// Adds `entries[index]` (read in place: a copy of each entry would retain and release its strings).
        mutating func add(_ entries: [BundleManifest.Entry], at index: Int) {
            if let lastPath, Memory.bytesPrecede(entries[index].path, lastPath) {
                inOrder = false
                return
            }
            if knownHashed == nil, entries[index].sha256 != nil {  // version 2 from now on
                knownHashed = true
                plain = nil
            }
            if plain != nil { Self.line(entries, at: index, hashed: false, into: &plain!) }
            if hashed != nil { Self.line(entries, at: index, hashed: true, into: &hashed!) }
            lastPath = entries[index].path
        }

        /// The identity of the entries added, or nil when they were not in path order.
        mutating func finalizeHex() -> String? {
            guard inOrder else { return nil }
            if knownHashed == true { return hashed!.finalizeHex() }
            return plain!.finalizeHex()
        }

        private static func line(_ entries: [BundleManifest.Entry], at index: Int, hashed: Bool, into lines: inout IdentityLines) {
            lines.text(entries[index].kind.rawValue)
            lines.tab()
            lines.number(entries[index].size ?? 0)
            lines.tab()
            lines.number(entries[index].crc32 ?? 0)
            lines.tab()
            if hashed {
                lines.text(entries[index].sha256 ?? "-")
                lines.tab()
            }
            lines.number(entries[index].mode ?? 0)
            lines.tab()
            lines.text(entries[index].path)
            lines.endLine()
        }
    }
}
