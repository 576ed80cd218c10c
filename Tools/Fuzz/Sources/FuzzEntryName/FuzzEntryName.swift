// libFuzzer target: arbitrary bytes as an entry name. AssetPath may refuse anything; what it accepts must
// be safe to create under a destination, judged here on the UTF-8 bytes, not on Swift Characters.
import AssetPack
import AssetPackZip

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    checkAccepted(String(decoding: bytes, as: UTF8.self))
    if let first = bytes.first, let name = decodeThroughZip(Array(bytes.dropFirst()), mode: first) {
        checkAccepted(name)
    }
    return 0
}

/// Runs `AssetPath(name)` and `appending(name)`; what they accept must break none of the rules.
func checkAccepted(_ name: String) {
    checkAppended(name)
    guard let path = try? AssetPath(name) else { return }
    if let broken = brokenRule(name) { fatalError("AssetPath accepted \(escaped(name)): \(broken)") }
    let body = name.utf8.last == UInt8(ascii: "/") ? Array(name.utf8.dropLast()) : Array(name.utf8)
    guard Array(path.string.utf8) == body else {
        fatalError("AssetPath(\(escaped(name))).string is \(escaped(path.string))")
    }
    for component in path.components where AssetPath.problem(with: component) != nil || component.utf8.contains(0x2F) {
        fatalError("AssetPath(\(escaped(name))) holds the unsafe component \(escaped(component))")
    }
}

/// `appending` takes one component: accepted, it must be a non-empty name with no "/" at all.
func checkAppended(_ name: String) {
    guard (try? AssetPath.root.appending(name)) != nil else { return }
    if name.utf8.contains(UInt8(ascii: "/")) || name.isEmpty { fatalError("appending accepted \(escaped(name))") }
    if let broken = brokenRule(name) { fatalError("appending accepted \(escaped(name)): \(broken)") }
}

/// The first rule an accepted name breaks, by its bytes and scalars, or nil.
func brokenRule(_ name: String) -> String? {
    let bytes = Array(name.utf8)
    if bytes.first == UInt8(ascii: "/") { return "leading /" }
    if bytes.isEmpty { return nil }  // the root
    let body = bytes.last == UInt8(ascii: "/") ? bytes.dropLast() : bytes[...]
    for component in body.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false) {
        if component.isEmpty { return "empty component" }
        if component.elementsEqual([0x2E]) || component.elementsEqual([0x2E, 0x2E]) { return "'.' or '..' component" }
    }
    for scalar in name.unicodeScalars {
        switch scalar.value {
        case 0: return "NUL"
        case 0x01...0x1F, 0x7F: return "control character U+\(String(scalar.value, radix: 16))"
        case 0x5C: return "backslash"
        default: continue
        }
    }
    return nil
}

/// The name as the zip layer decodes it: `mode` bit 0 sets the UTF-8 flag (bit 11); bit 1 stores the
/// bytes in an Info-ZIP Unicode Path extra field (0x7075) under the raw name "x" instead. Nil when the
/// one-entry archive around it does not open (a name longer than 65,535 bytes).
func decodeThroughZip(_ name: [UInt8], mode: UInt8) -> String? {
    let useExtra = mode & 2 != 0
    let rawName = useExtra ? [UInt8(ascii: "x")] : name
    let extra = useExtra ? unicodePathField(name, rawName: rawName) : []
    guard name.count <= 0xFFFF - 9 else { return nil }
    let flags: UInt16 = mode & 1 != 0 ? 1 << 11 : 0
    let archive = oneEntryArchive(rawName: rawName, extra: extra, flags: flags)
    return (try? ZipArchive(source: MemorySource(archive)))?.entries.first?.name
}

/// An Info-ZIP Unicode Path extra field holding `text`, whose CRC matches `rawName`.
func unicodePathField(_ text: [UInt8], rawName: [UInt8]) -> [UInt8] {
    var crc = CRC32()
    rawName.withUnsafeBytes { crc.update($0) }
    var field: [UInt8] = []
    field.le16(0x7075); field.le16(UInt16(5 + text.count)); field.append(1); field.le32(crc.value)
    return field + text
}

/// A stored, empty, one-entry archive: local header, central header, end record.
func oneEntryArchive(rawName: [UInt8], extra: [UInt8], flags: UInt16) -> [UInt8] {
    var out: [UInt8] = []
    out.le32(0x0403_4b50); out.le16(20); out.le16(flags); out.le16(0); out.le32(0)  // method, time+date
    out.le32(0); out.le32(0); out.le32(0)  // crc, sizes
    out.le16(UInt16(rawName.count)); out.le16(0)
    out += rawName
    let central = UInt32(out.count)
    out.le32(0x0201_4b50); out.le16(0x031E); out.le16(20); out.le16(flags); out.le16(0); out.le32(0)
    out.le32(0); out.le32(0); out.le32(0)
    out.le16(UInt16(rawName.count)); out.le16(UInt16(extra.count)); out.le16(0)  // name, extra, comment
    out.le16(0); out.le16(0); out.le32(0o100644 << 16); out.le32(0)  // disk, internal, external, offset
    out += rawName + extra
    let centralSize = UInt32(out.count) - central
    out.le32(0x0605_4b50); out.le16(0); out.le16(0); out.le16(1); out.le16(1)
    out.le32(centralSize); out.le32(central); out.le16(0)
    return out
}

extension [UInt8] {
    mutating func le16(_ value: UInt16) { append(UInt8(value & 0xFF)); append(UInt8(value >> 8)) }
    mutating func le32(_ value: UInt32) { le16(UInt16(value & 0xFFFF)); le16(UInt16(value >> 16)) }
}

/// The name with every non-printable-ASCII scalar escaped, for a readable crash message.
func escaped(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
        if scalar.value >= 0x20 && scalar.value < 0x7F && scalar != "\\" && scalar != "\"" {
            out.unicodeScalars.append(scalar)
        } else {
            out += "\\u{\(String(scalar.value, radix: 16))}"
        }
    }
    return out + "\""
}
