/// The identity of a tree planned without a manifest (a walked folder, an archive given as the source):
/// one line per item, `kind \t size \t crc32-or-dash \t mode \t path [\t link target] [\t @modified]`, each
/// hashed on its own (two 64-bit hashes with different seeds), the hashes summed, and SHA-256 taken over a
/// header, the number of lines and the two sums. A file of a folder source, whose contents are not read to
/// plan it, adds its modification time in nanoseconds: a file edited in place to other bytes of the same size
/// then changes the identity, so the tree is never called up to date after it.
///
/// Summing makes it independent of the order the items come in (``ArchiveWindowPlanner`` plans in the
/// archive's order). It tells trees apart; it is no signature (``ContentIdentity`` is the one trusted).
struct TreeIdentity {
    private var first: UInt64 = 0
    private var second: UInt64 = 0
    private var count: UInt64 = 0
    private var line: [UInt8] = []

    /// No items yet.
    init() { line.reserveCapacity(256) }

    /// The identity of `items`.
    static func of(_ items: [ExpansionItem]) -> String {
        var identity = TreeIdentity()
        // By index, each field read in place: a copy of each item would retain and release its parts.
        for position in items.indices { identity.add(items[position]) }
        return identity.finalize()
    }

    /// Adds one item; `modified`: its modification time in nanoseconds, for a file whose contents were not read.
    mutating func add(_ item: ExpansionItem, modified: Int64? = nil) {
        line.removeAll(keepingCapacity: true)
        append(item.kind.rawValue)
        line.append(0x09)
        append(item.size, radix: 10)
        line.append(0x09)
        if let crc = item.crc32 { append(UInt64(crc), radix: 16) } else { line.append(UInt8(ascii: "-")) }
        line.append(0x09)
        append(UInt64(item.permissions), radix: 8)
        line.append(0x09)
        append(item.path.string)
        if let target = item.symlinkTarget {
            line.append(0x09)
            append(target)
        }
        if let modified {
            line.append(0x09)
            line.append(UInt8(ascii: "@"))
            append(UInt64(bitPattern: modified), radix: 10)
        }
        line.withUnsafeBytes { bytes in
            first &+= MurmurHash64A.hash(bytes, seed: 0x9E37_79B9_7F4A_7C15)
            second &+= MurmurHash64A.hash(bytes, seed: 0xC2B2_AE3D_27D4_EB4F)
        }
        count += 1
    }

    /// The identity: 64 lowercase hex digits.
    func finalize() -> String {
        var hash = SHA256()
        hash.update("assetpack-tree-identity-2\n\(count)\n\(String(first, radix: 16))\n\(String(second, radix: 16))\n")
        return hash.finalizeHex()
    }

    private mutating func append(_ text: String) {
        var text = text
        text.withUTF8 { line.append(contentsOf: $0) }
    }

    private mutating func append(_ value: UInt64, radix: UInt64) {
        if value == 0 { return line.append(UInt8(ascii: "0")) }
        let start = line.count
        var rest = value
        while rest > 0 {
            let digit = UInt8(truncatingIfNeeded: rest % radix)
            line.append(digit < 10 ? UInt8(ascii: "0") &+ digit : UInt8(ascii: "a") &+ digit &- 10)
            rest /= radix
        }
        line[start...].reverse()
    }
}
