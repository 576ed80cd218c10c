/// The instructions of a chunk patch: how to make a run of a file's new chunks from the bytes of its previous
/// version (`BundleManifest/Storage/patches`), written by the packer and read by the installer.
///
/// A patch is a raw deflate stream of pairs, each `literal length` (LEB128), that many new bytes, `copy length`
/// (LEB128) and, when that is not 0, where the copy starts in the previous version, as the zigzag LEB128
/// difference from where the previous copy ended (0 before the first). The pairs make exactly the run's bytes; the
/// last one may copy nothing.
package enum ChunkPatch {
    /// Builds the instructions of one patch, before they are deflated.
    package struct Writer {
        /// The instructions so far.
        package private(set) var bytes: [UInt8] = []
        /// The bytes they make.
        package private(set) var outputSize: UInt64 = 0
        private var copyEnd: UInt64 = 0

        package init() {}

        /// Appends `literal`, then `copyLength` bytes of the previous version from `copyFrom` on.
        package mutating func append(literal: UnsafeRawBufferPointer, copyFrom: UInt64, copyLength: UInt64) {
            appendNumber(UInt64(literal.count))
            bytes.append(contentsOf: literal)
            appendNumber(copyLength)
            if copyLength > 0 {
                let delta = Int64(bitPattern: copyFrom &- copyEnd)
                appendNumber(UInt64(bitPattern: (delta << 1) ^ (delta >> 63)))
                copyEnd = copyFrom + copyLength
            }
            outputSize += UInt64(literal.count) + copyLength
        }

        private mutating func appendNumber(_ value: UInt64) {
            var value = value
            while value >= 0x80 {
                bytes.append(UInt8(value & 0x7F) | 0x80)
                value >>= 7
            }
            bytes.append(UInt8(value))
        }
    }

    /// One instruction read from a patch.
    package enum Instruction {
        /// New bytes, to write as they are.
        case literal(UnsafeRawBufferPointer)
        /// `length` bytes of the previous version from `from` on.
        case copy(from: UInt64, length: UInt64)
    }

    /// Reads a patch's instructions as its inflated bytes arrive, in pieces of any size; refuses instructions
    /// that would make more than `outputSize` bytes or copy from past `baseSize`.
    package struct Reader {
        private enum State {
            case literalLength, literal(UInt64), copyLength, copyStart(UInt64)
        }

        private let outputSize: UInt64
        private let baseSize: UInt64
        private var state = State.literalLength
        private var number: UInt64 = 0
        private var shift: UInt64 = 0
        private var copyEnd: UInt64 = 0
        /// The bytes made so far.
        package private(set) var produced: UInt64 = 0

        /// A reader of a patch making `outputSize` bytes from a previous version of `baseSize` bytes.
        package init(outputSize: UInt64, baseSize: UInt64) {
            self.outputSize = outputSize
            self.baseSize = baseSize
        }

        /// True once the instructions made every byte and ended with a whole pair.
        package var isComplete: Bool {
            if case .literalLength = state { return produced == outputSize && shift == 0 }
            return false
        }

        /// Reads `bytes`, handing each instruction to `body` as soon as it is known (a literal possibly in parts).
        /// - Throws: `.verification` for an instruction that does not fit, or bytes after the last one; what `body` throws.
        package mutating func read(_ bytes: UnsafeRawBufferPointer,
                                   _ body: (Instruction) throws(AssetPackError) -> Void) throws(AssetPackError) {
            var at = 0
            while at < bytes.count {
                if case .literal(let left) = state {
                    let count = Int(min(left, UInt64(bytes.count - at)))
                    try body(.literal(UnsafeRawBufferPointer(rebasing: bytes[at..<(at + count)])))
                    at += count
                    state = left == UInt64(count) ? .copyLength : .literal(left - UInt64(count))
                    continue
                }
                if isComplete { throw Self.damage("bytes after its last instruction") }
                let byte = bytes[at]
                at += 1
                guard shift < 63 || byte <= 1 else { throw Self.damage("a number longer than 64 bits") }
                number |= UInt64(byte & 0x7F) << shift
                shift += 7
                guard byte & 0x80 == 0 else { continue }
                let value = number
                (number, shift) = (0, 0)
                try take(value, body)
            }
        }

        private mutating func take(_ value: UInt64, _ body: (Instruction) throws(AssetPackError) -> Void) throws(AssetPackError) {
            switch state {
            case .literalLength:
                try claim(value)
                state = value == 0 ? .copyLength : .literal(value)
            case .copyLength:
                try claim(value)
                state = value == 0 ? .literalLength : .copyStart(value)
            case .copyStart(let length):
                let delta = Int64(bitPattern: (value >> 1) ^ (0 &- (value & 1)))
                let from = copyEnd &+ UInt64(bitPattern: delta)
                guard from <= baseSize, length <= baseSize - from else {
                    throw Self.damage("a copy of \(length) bytes from byte \(from) of a previous version of \(baseSize) bytes")
                }
                copyEnd = from + length
                try body(.copy(from: from, length: length))
                state = .literalLength
            case .literal:
                break
            }
        }

        /// Counts `count` more bytes made.
        private mutating func claim(_ count: UInt64) throws(AssetPackError) {
            guard count <= outputSize - produced else {
                throw Self.damage("more than the \(outputSize) bytes of its chunks")
            }
            produced += count
        }

        private static func damage(_ what: String) -> AssetPackError {
            AssetPackError(.verification, "the chunk patch is damaged: it holds \(what)")
        }
    }
}
