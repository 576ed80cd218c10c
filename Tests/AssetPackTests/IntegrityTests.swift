import AssetPack
import AssetPackZip
import Foundation
import Testing
import TestSupport

/// Broken archives at the expander level: every damage the zip layer detects becomes an
/// ``AssetPackError`` naming the archive and the entry — code `.verification` when an entry's bytes do not
/// check out as they are written (size, CRC-32, deflate data: the one mismatch), `.archive` for the rest
/// (the ``ZipError`` code says how); the previous tree stays as it was, no file with bad bytes ever gets its final name, and nothing
/// is left beside the destination: a damaged archive cannot be resumed, so its staging tree is removed.
@Suite struct IntegrityTests {
    static let text: [UInt8] = { var random = SeededRandom(seed: 11); return random.text(40_000) }()
    static let noise: [UInt8] = { var random = SeededRandom(seed: 12); return random.bytes(2_000) }()
    static let contents = ["data.bin": text, "good.txt": Array("good".utf8), "stored.bin": noise]

    /// `data.bin` deflated, `good.txt` stored, `stored.bin` stored: written in this order with one job.
    static func archive() throws -> RawZip {
        RawZip([try RawZip.deflated("data.bin", text), RawZip.file("good.txt", Array("good".utf8)), RawZip.file("stored.bin", noise)])
    }

    /// Field offsets (APPNOTE 4.3.7, 4.3.12), from each record's signature.
    enum Field {
        static let localCRC = 14, localCompressed = 18, localUncompressed = 22
        static let centralCRC = 16, centralCompressed = 20, centralUncompressed = 24, centralLocalOffset = 42
        static let localSignature = 0, localMethod = 8, centralMethod = 10, centralMode = 40
    }

    struct Damage: Sendable, CustomTestStringConvertible {
        let label: String
        /// The ZipError codes this damage may show as (one, where the reader's order makes it certain).
        let codes: Set<ZipError.Code>
        /// The entry the error must name, when it concerns one.
        let entry: String?
        let apply: @Sendable (inout [UInt8], RawZip.Layout) -> Void
        var testDescription: String { label }
    }

    static let damages: [Damage] = [
        Damage(label: "CRC-32 mismatch in both headers", codes: [.checksum], entry: "stored.bin") { bytes, layout in
            bytes.put(UInt32(0xDEAD_BEEF), at: layout.localOffsets[2] + Field.localCRC)
            bytes.put(UInt32(0xDEAD_BEEF), at: layout.centralOffsets[2] + Field.centralCRC)
        },
        Damage(label: "a stored data byte flipped", codes: [.checksum], entry: "stored.bin") { bytes, layout in
            bytes[layout.dataOffsets[2] + 999] ^= 0x55
        },
        Damage(label: "deflated size declared too small", codes: [.sizeMismatch], entry: "data.bin") { bytes, layout in
            bytes.put(UInt32(text.count - 100), at: layout.localOffsets[0] + Field.localUncompressed)
            bytes.put(UInt32(text.count - 100), at: layout.centralOffsets[0] + Field.centralUncompressed)
        },
        Damage(label: "deflated size declared too large", codes: [.sizeMismatch], entry: "data.bin") { bytes, layout in
            bytes.put(UInt32(text.count + 100), at: layout.localOffsets[0] + Field.localUncompressed)
            bytes.put(UInt32(text.count + 100), at: layout.centralOffsets[0] + Field.centralUncompressed)
        },
        Damage(label: "stored size declared too small", codes: [.checksum], entry: "stored.bin") { bytes, layout in
            for (record, fields) in [(layout.localOffsets[2], [Field.localCompressed, Field.localUncompressed]),
                                     (layout.centralOffsets[2], [Field.centralCompressed, Field.centralUncompressed])] {
                for field in fields { bytes.put(UInt32(noise.count - 10), at: record + field) }
            }
        },
        Damage(label: "stored size declared too large", codes: [.overlap], entry: "good.txt") { bytes, layout in
            for (record, fields) in [(layout.localOffsets[1], [Field.localCompressed, Field.localUncompressed]),
                                     (layout.centralOffsets[1], [Field.centralCompressed, Field.centralUncompressed])] {
                for field in fields { bytes.put(UInt32(500), at: record + field) }
            }
        },
        Damage(label: "deflate data truncated", codes: [.truncated], entry: "data.bin") { bytes, layout in
            let half = UInt32((layout.localOffsets[1] - layout.dataOffsets[0]) / 2)
            bytes.put(half, at: layout.localOffsets[0] + Field.localCompressed)
            bytes.put(half, at: layout.centralOffsets[0] + Field.centralCompressed)
        },
        Damage(label: "deflate stream damaged", codes: [.corruptData, .checksum, .sizeMismatch, .truncated], entry: "data.bin") { bytes, layout in
            for offset in stride(from: layout.dataOffsets[0] + 40, to: layout.dataOffsets[0] + 400, by: 7) { bytes[offset] ^= 0xA5 }
        },
        Damage(label: "local and central names disagree", codes: [.headerMismatch], entry: "stored.bin") { bytes, layout in
            bytes[layout.dataOffsets[2] - 1] = UInt8(ascii: "X")  // the last byte of the local header's name
        },
        Damage(label: "local and central CRC-32 disagree", codes: [.headerMismatch], entry: "stored.bin") { bytes, layout in
            bytes.put(UInt32(0x1234_5678), at: layout.localOffsets[2] + Field.localCRC)
        },
        Damage(label: "local header offset past the end", codes: [.overlap], entry: "good.txt") { bytes, layout in
            bytes.put(UInt32(0x7FFF_FFF0), at: layout.centralOffsets[1] + Field.centralLocalOffset)
        },
        Damage(label: "no local header where the directory points", codes: [.format], entry: "stored.bin") { bytes, layout in
            bytes.put(UInt32(layout.localOffsets[2] + 8), at: layout.centralOffsets[2] + Field.centralLocalOffset)
            bytes.put(UInt32(0x0403_4b50 ^ 0xFF), at: layout.localOffsets[2] + 8)  // no signature there either way
        },
        Damage(label: "central directory truncated", codes: [.format, .truncated], entry: nil) { bytes, layout in
            bytes.removeSubrange(layout.endOffset - 20..<layout.endOffset)
        },
        Damage(label: "end record missing", codes: [.format], entry: nil) { bytes, layout in
            bytes.removeSubrange(layout.endOffset...)
        },
        Damage(label: "archive cut in half", codes: [.format], entry: nil) { bytes, _ in
            bytes.removeSubrange((bytes.count / 2)...)
        },
        Damage(label: "end record counts more entries", codes: [.format], entry: nil) { bytes, layout in
            bytes.put(UInt16(9), at: layout.endOffset + 8)
            bytes.put(UInt16(9), at: layout.endOffset + 10)
        },
    ]

    @Test(arguments: damages, Placement.allCases)
    func isAnErrorAndNoBadFileGetsItsName(_ damage: Damage, _ placement: Placement) throws {
        let stage = try HostileStage("integrity")
        var (bytes, layout) = try Self.archive().build()
        damage.apply(&bytes, layout)
        let error = try stage.refuse(bytes, placement)
        let written: Set<ZipError.Code> = [.checksum, .sizeMismatch, .corruptData]
        let code: AssetPackError.Code = error?.zipError.map { written.contains($0.code) } == true ? .verification : .archive
        expectError(error, code, mentions: [stage.archivePath(placement).shown] + (damage.entry.map { ["\"\($0)\""] } ?? []))
        #expect(error?.zipError.map { damage.codes.contains($0.code) } == true, "\(String(describing: error?.zipError?.code))")
        let damaged = damage.entry.map { [$0] } ?? ["data.bin", "good.txt", "stored.bin"]
        stage.expectIntact(absent: damaged)
    }

    @Test func theGoodArchiveExpands() throws {
        // The control: without damage, the same archive expands exactly, in both placements.
        for placement in Placement.allCases {
            let stage = try HostileStage("integrity-good")
            let path = stage.archivePath(placement).path
            try makeParent(path)
            try Data(try Self.archive().bytes).write(to: URL(fileURLWithPath: path))
            let tree = try stage.accept(placement)
            #expect(tree?.files == Self.contents ? true : false)
        }
    }

    /// An outer archive whose only entry is `pk/inner.zip`, a stored zip (`inner`) holding `pk/in1.txt`
    /// (mode 0644); and where the inner central header lies in the outer archive's bytes.
    static func nestedArchive() -> (bytes: [UInt8], inner: [UInt8], innerCentral: Int) {
        let (inner, innerLayout) = RawZip([RawZip.file("pk/in1.txt", Array("inner\n".utf8), mode: 0o644)]).build()
        let (outer, outerLayout) = RawZip([RawZip.file("pk/inner.zip", inner)]).build()
        return (outer, inner, outerLayout.dataOffsets[0] + innerLayout.centralOffsets[0])
    }

    /// Damage inside a stored inner archive's central directory, the outer CRC-32 left as it was: what a
    /// reader of the inner archive in place (a byte range of the outer one) would trust without looking.
    static let innerDirectoryDamages: [(label: String, field: Int, value: UInt16)] = [
        ("inner mode 0644 made 0755", Field.centralMode, UInt16(0o100755)),
        ("inner method made 99", Field.centralMethod, 99),
    ]

    @Test(arguments: 0..<innerDirectoryDamages.count, Placement.allCases)
    func aDamagedStoredInnerArchiveIsTheOuterEntrysCRCMismatch(_ damage: Int, _ placement: Placement) throws {
        // As the source, pk/inner.zip is unzipped in place; inside a tree, it stays a file (one level).
        let (label, field, value) = Self.innerDirectoryDamages[damage]
        let stage = try HostileStage("integrity-nested")
        var (bytes, _, innerCentral) = Self.nestedArchive()
        bytes.put(value, at: innerCentral + field)
        let error = try stage.refuse(bytes, placement)
        // Inside a tree, the inner archive is a file written (the one mismatch); as the source, it is read in place.
        expectError(error, placement == .inTree ? .verification : .archive,
                    mentions: [stage.archivePath(placement).shown, "\"pk/inner.zip\"", "CRC-32"])
        #expect(error?.zipError?.code == .checksum, "\(label): \(String(describing: error))")
        stage.expectIntact(absent: ["pk"])
    }

    @Test(arguments: Placement.allCases)
    func anUndamagedStoredInnerArchiveExpands(_ placement: Placement) throws {
        // The control of the test above.
        let stage = try HostileStage("integrity-nested-good")
        let (bytes, inner, _) = Self.nestedArchive()
        let path = stage.archivePath(placement).path
        try makeParent(path)
        try writeBytes(bytes, to: path)
        // As the source, pk/inner.zip is unzipped into its folder pk/.
        let expected = placement == .asSource ? ["pk/pk/in1.txt": Array("inner\n".utf8)] : ["pk/inner.zip": inner]
        #expect(try stage.accept(placement)?.files == expected)
    }

    /// How a directory entry's local header is broken; `unzip -t` reports "bad zipfile offset (local header
    /// sig)" for the first, Python refuses all three.
    static let directoryHeaderDamages: [(label: String, code: ZipError.Code)] = [
        ("no local header signature", .format), ("local header names ../EVIL/", .headerMismatch), ("local header says method 99", .headerMismatch),
    ]

    @Test(arguments: 0..<directoryHeaderDamages.count, Placement.allCases)
    func aDirectoryEntrysBrokenLocalHeaderIsAnError(_ damage: Int, _ placement: Placement) throws {
        let (label, code) = Self.directoryHeaderDamages[damage]
        var directory = RawZip.directory("d/")
        if damage == 1 { directory.localName = Array("../EVIL/".utf8) }
        var (bytes, layout) = RawZip([directory, RawZip.file("d/a.txt", Array("a".utf8))]).build()
        if damage == 0 { bytes.put(UInt32(0x0403_4b50 ^ 0xFF), at: layout.localOffsets[0] + Field.localSignature) }
        if damage == 2 { bytes.put(UInt16(99), at: layout.localOffsets[0] + Field.localMethod) }
        let stage = try HostileStage("integrity-directory")
        let error = try stage.refuse(bytes, placement)
        expectError(error, .archive, mentions: [stage.archivePath(placement).shown, "\"d/\""])
        #expect(error?.zipError?.code == code, "\(label): \(String(describing: error))")
        stage.expectIntact(absent: ["d/a.txt"])
    }

    @Test func aDamagedEntryAfterAnUpgradeKeepsThePreviousVersionAndTheNextRunStartsAfresh() throws {
        let stage = try HostileStage("integrity-recover")
        var (bytes, layout) = try Self.archive().build()
        bytes[layout.dataOffsets[2] + 5] ^= 0xFF
        let error = try stage.refuse(bytes, .inTree)
        expectError(error, .verification, mentions: ["pack.zip", "stored.bin", "CRC-32"])
        stage.expectIntact(absent: ["stored.bin"])
        try Data(try Self.archive().bytes).write(to: URL(fileURLWithPath: stage.archivePath(.inTree).path))
        let result = try AssetInstaller(source: DirectorySource(root: stage.scratch.file("tree")), destination: stage.destination).installSynchronously()
        #expect(result.filesResumed == 0, "nothing of the refused run was kept")
        #expect(DiskTree.read(stage.destination)?.files == Self.contents ? true : false)
        #expect(hiddenNames(stage.scratch.file("out")) == [])
    }
}

extension Array where Element == UInt8 {
    /// Overwrites `MemoryLayout<T>.size` bytes at `offset` with `value`, little-endian.
    mutating func put<T: FixedWidthInteger & UnsignedInteger>(_ value: T, at offset: Int) {
        for index in 0..<MemoryLayout<T>.size { self[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * index)) }
    }
}
