/// The names a ``ZipWriter`` has written, as 64-bit hashes, so that a second entry of one name is refused.
/// While names come in increasing order (as a packer writes them) a new name cannot repeat one, so the hashes
/// only go in a set past ``setAfter`` names out of order. Two names share a hash with a chance of about n² / 2⁶⁵.
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
