/// `bytes` as lowercase hex digits, two a byte: the one hex encoder of digests (manifests, key IDs).
package func lowercaseHex<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> String {
    let digits = Array("0123456789abcdef".utf8)
    return String(decoding: bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] }, as: UTF8.self)
}
