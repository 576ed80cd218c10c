/// The names a ``ZipWriter`` has written, so that a second entry of one name is refused, in little memory:
/// a 64-bit hash of each name's bytes. While the names come in increasing order (a folder's trailing `/` left
/// out), as a packer writes them, a name past the last cannot repeat one: the hashes are only kept in an array,
/// which the few names out of order are looked up in; past ``setAfter`` of those, every hash goes in a set.
/// Two different names share a hash with a chance of about n² / 2⁶⁵ (one in 36 million at a million entries);
/// the second is then refused as a duplicate, and a new writer (another seed) takes it.
struct EntryNames {
    /// Names out of order looked up in the array before the hashes go in a set.
    static let setAfter = 64

    private var last: [UInt8] = []
    private var ordered: [Int]? = []
    private var hashed: Set<Int> = []

    /// Adds `name`; false when it was written before.
    mutating func insert(_ name: String) -> Bool {
        var bytes = Array(name.utf8)
        var hasher = Hasher()
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
        let hash = hasher.finalize()
        if bytes.last == UInt8(ascii: "/") { bytes.removeLast() }
        if ordered != nil {
            if last.lexicographicallyPrecedes(bytes) {
                ordered!.append(hash)
                last = bytes
                return true
            }
            if hashed.count < Self.setAfter { return !ordered!.contains(hash) && hashed.insert(hash).inserted }
            hashed.formUnion(ordered!)
            ordered = nil
        }
        return hashed.insert(hash).inserted
    }
}
