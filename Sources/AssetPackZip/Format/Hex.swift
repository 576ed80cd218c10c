/// Eight lowercase hex digits: the one way the package writes a CRC-32 or a 32-bit word (checksums in
/// messages and listings, digests).
package func hex(_ value: UInt32) -> String {
    let digits = String(value, radix: 16)
    return String(repeating: "0", count: 8 - digits.count) + digits
}
