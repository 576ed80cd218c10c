import Testing
import TestSupport
@testable import AssetPack

/// ``JSONEscape/firstSpecialByte(_:from:to:)`` finds what a byte-by-byte scan finds, at every offset of a
/// word and next to every byte value.
@Suite struct JSONSpecialByteTests {
    @Test func theWordScanFindsTheFirstByteAByteScanFinds() {
        var random = SeededRandom(seed: 7)
        let plain = Array("abcdefghijklmnopqrstuvwxyz0123456789/-_.é€".utf8)
        for _ in 0..<2_000 {
            var bytes = (0..<Int.random(in: 0...40, using: &random)).map { _ in plain.randomElement(using: &random)! }
            if !bytes.isEmpty, Bool.random(using: &random) {
                // One special byte, or a byte next to one (0x1F/0x20, 0x21/0x23, 0x5B/0x5D, 0x7F, 0x80, 0xFF).
                let value: UInt8 = [0x00, 0x09, 0x1F, 0x20, 0x21, 0x22, 0x23, 0x5B, 0x5C, 0x5D, 0x7F, 0x80, 0xA2, 0xDC, 0xFF].randomElement(using: &random)!
                bytes[Int.random(in: 0..<bytes.count, using: &random)] = value
            }
            let start = bytes.isEmpty ? 0 : Int.random(in: 0...bytes.count, using: &random)
            let expected = bytes[start...].firstIndex { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C } ?? bytes.count
            let found = bytes.withUnsafeBufferPointer { buffer in
                buffer.baseAddress.map { JSONEscape.firstSpecialByte($0, from: start, to: buffer.count) } ?? 0
            }
            #expect(found == expected, "\(bytes) from \(start)")
        }
    }
}
