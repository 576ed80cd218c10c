import Testing
import TestSupport
@testable import AssetPack

/// ``PackerEntryReader`` reads the entries the packer writes, and any entry it reads is exactly what the
/// member-by-member reader makes of it; anything laid out otherwise is left to that reader.
@Suite struct PackerEntryReaderTests {
    /// Entries of every shape the packer writes: folders and files, with and without each optional member.
    static func entries(_ random: inout SeededRandom) -> [BundleManifest.Entry] {
        var entries: [BundleManifest.Entry] = []
        for index in 0..<400 {
            let path = "d\(index % 7)/f\(index)\(index % 5 == 0 ? "-é" : "").txt"
            if index % 9 == 0 {
                var folder = BundleManifest.Entry.directory(path)
                if index % 2 == 0 { folder.mode = 0o755 }
                entries.append(folder)
                continue
            }
            let storage: BundleManifest.Storage
            switch index % 4 {
            case 0: storage = .plain("assetpack-meta/files/\(index)")
            case 1: storage = .packed(archive: "assetpack-meta/packs/\(index / 50).zip", entry: index % 3 == 0 ? "other/\(index)" : path,
                                      method: index % 2 == 0 ? "stored" : "deflate", compressedSize: UInt64(index) << 20,
                                      dataOffset: index % 6 == 1 ? nil : UInt64.random(in: 0...UInt64.max, using: &random))
            case 2: storage = .packed(archive: "a.zip", entry: path, method: "deflate", compressedSize: 7,
                                      blocks: [[0, 0], [4 << 20, 1000]], blockSHA256: nil, dataOffset: 30)
            default: storage = .packed(archive: "assetpack-meta/packs/\(index / 50).zip", entry: path, method: "stored",
                                       compressedSize: 0, dataOffset: 0)
            }
            let hash = index % 8 == 3 ? nil : String((0..<64).map { _ in "0123456789abcdef".randomElement(using: &random)! })
            entries.append(.file(path, size: index % 10 == 0 ? 0 : UInt64.random(in: 0...UInt64.max, using: &random),
                                 crc32: UInt32.random(in: 0...UInt32.max, using: &random), storage: storage,
                                 mode: index % 11 == 0 ? 0o755 : nil, sha256: hash))
        }
        return entries
    }

    /// The entry lines of `manifest` as the packer writes it.
    static func lines(_ manifest: BundleManifest) throws -> [String] {
        try String(decoding: manifest.encodedJSON(), as: UTF8.self).split(separator: "\n").dropFirst().dropLast()
            .map { $0.hasSuffix(",") ? String($0.dropLast()) : String($0) }
    }

    /// Both readers' verdicts on `line`: (this reader's entry, the member-by-member reader's).
    static func read(_ line: String) -> (fast: BundleManifest.Entry?, general: BundleManifest.Entry?) {
        Array(line.utf8).withUnsafeBytes { raw in
            let text = JSONBytes(borrowing: raw)
            var shared = PackerEntryReader.Shared()
            let fast = PackerEntryReader.entry(in: text, at: 0, shared: &shared)
            if let fast { #expect(fast.end == text.count || text.byte(at: fast.end) == UInt8(ascii: ",")) }
            return (fast?.entry, try? Reader(text: text).memberwiseEntry(at: 0))
        }
    }

    @Test func thePackersEntriesReadAsTheGeneralReaderReadsThem() throws {
        var random = SeededRandom(seed: 0x7061636b)
        let manifest = BundleManifest(threshold: 1, generator: "g", entries: Self.entries(&random))
        var taken = 0
        for line in try Self.lines(manifest) {
            let (fast, general) = Self.read(line)
            #expect(general != nil)
            if let fast {
                taken += 1
                #expect(fast == general, "\(line)")
            } else {
                #expect(line.contains(#""blocks""#), "not taken: \(line)")  // only a block index is left to the other reader
            }
        }
        #expect(taken > 250)
    }

    /// Another layout of the same entry, an unusual value, or a broken one: never read differently.
    @Test func anythingElseIsLeftToTheGeneralReaderOrReadAlike() {
        let line = #"{"crc32":7,"kind":"file","path":"a/b.txt","sha256":"\#(String(repeating: "ab", count: 32))","size":12,"#
            + #""storage":{"compressedSize":12,"dataOffset":30,"entry":"a/b.txt","file":"p.zip","form":"packed","method":"stored"}}"#
        #expect(Self.read(line).fast != nil)
        let replacements: [(String, String)] = [
            (#""crc32":7,"#, #""crc32": 7,"#),  // white space
            (#""size":12"#, #""size":012"#),  // a leading zero: not JSON
            (#""size":12"#, #""size":-0"#),
            (#""size":12"#, #""size":1.5"#),
            (#""size":12"#, #""size":1e3"#),
            (#""size":12"#, #""size":18446744073709551616"#),  // out of range
            (#""crc32":7"#, #""crc32":4294967296"#),
            (#""size":12"#, #""size":null"#),
            (#""size":12,"#, #""size":12,"size":13,"#),  // a name twice: the last wins
            (#""size":12,"#, #""size":12,"zzz":[1,{"a":null}],"#),  // an unknown member
            (#"{"crc32":7,"kind":"file","#, #"{"kind":"file","crc32":7,"#),  // another order
            (#""path":"a/b.txt""#, #""path":"a\/b.txt""#),  // an escape
            (#""path":"a/b.txt""#, #""path":"a/b\u0000.txt""#),
            (#""kind":"file""#, #""kind":"files""#),
            (#""form":"packed""#, #""form":"plain""#),
            (#""method":"stored""#, #""method":null"#),
        ]
        var variants: [String] = replacements.map { line.replacingOccurrences(of: $0.0, with: $0.1) }
        variants.append(line.replacingOccurrences(of: "}}", with: "}"))  // cut short
        variants.append(String(line.dropLast()))
        variants.append(line + ",")
        for variant in variants {
            let (fast, general) = Self.read(variant)
            if let fast { #expect(fast == general, "\(variant)") }
        }
        // Invalid UTF-8 in a name is refused by both.
        var bytes = Array(line.utf8)
        bytes[bytes.firstIndex(of: UInt8(ascii: "b"))!] = 0xFF
        bytes.withUnsafeBytes { raw in
            var shared = PackerEntryReader.Shared()
            #expect(PackerEntryReader.entry(in: JSONBytes(borrowing: raw), at: 0, shared: &shared) == nil)
        }
    }
}
