import AssetPackSystem

/// One list of a record being gathered (its folders, files or links): each entry's JSON object with its path,
/// in memory up to a limit and beyond it in a temporary file of the record folder, and handed back in path
/// order (``emit(to:from:)``) whatever order the entries came in.
///
/// Entries come a window at a time, each window in path order. A window that does not start after the last
/// entry (an archive's windows) starts a new *run*; the runs are merged when the list is written, one
/// buffered reader a run.
struct RecordListSpool {
    /// The temporary file's name in the record folder.
    let name: String
    /// Bytes kept in memory before they go to the file.
    let memoryLimit: Int
    /// Frames (``append(path:object:in:)``) not in the file yet.
    private var memory: [UInt8] = []
    /// The temporary file, once the frames outgrew memory, and the bytes in it.
    private var file: Descriptor?
    private var fileSize: UInt64 = 0
    /// Where each run starts, in the bytes of the list (the file's, then memory's).
    private var runStarts: [UInt64] = [0]
    /// The path of the last entry.
    private var lastPath: [UInt8] = []
    /// Entries so far.
    private(set) var count = 0

    init(name: String, memoryLimit: Int) {
        self.name = name
        self.memoryLimit = memoryLimit
    }

    /// Adds one entry: its path's bytes and its JSON object. Stored as a frame: the two lengths (32 bits
    /// each, little-endian), the path, the object.
    mutating func append(path: UnsafeBufferPointer<UInt8>, object: UnsafeBufferPointer<UInt8>,
                         in folder: Descriptor) throws(AssetPackError) {
        if count > 0 && !lastPath.withUnsafeBufferPointer({ AssetPath.precedes($0, path) }) {
            runStarts.append(fileSize + UInt64(memory.count))
        }
        lastPath.removeAll(keepingCapacity: true)
        lastPath.append(contentsOf: path)
        count += 1
        for length in [UInt32(path.count), UInt32(object.count)] {
            withUnsafeBytes(of: length.littleEndian) { memory.append(contentsOf: $0) }
        }
        memory.append(contentsOf: path)
        memory.append(contentsOf: object)
        if memory.count > memoryLimit { try spill(in: folder) }
    }

    /// Moves what is in memory to the file.
    private mutating func spill(in folder: Descriptor) throws(AssetPackError) {
        if file == nil {
            try io(folder.remove(name))
            file = try io(folder.createFile(name, readable: true))
        }
        try io(file!.fd.writeAll(memory, path: folder.child(name)))
        fileSize += UInt64(memory.count)
        memory.removeAll(keepingCapacity: true)
    }

    /// Lets the temporary file's bytes go once the list is written: truncated and closed, so that its pages
    /// waiting for write-back are dropped rather than written by a flush of the file system.
    mutating func discard() {
        try? file?.fd.truncate(to: 0, path: nil)
        file = nil
        fileSize = 0
        memory = []
        runStarts = [0]
        count = 0
    }

    /// Hands the list's text (its objects in path order, comma-separated) to `emit` in pieces of about 64 KiB.
    mutating func emit(to emit: (borrowing [UInt8]) throws(AssetPackError) -> Void, from folder: Descriptor) throws(AssetPackError) {
        guard count > 0 else { return }
        if file != nil { try spill(in: folder) }
        let end = fileSize + UInt64(memory.count)
        var readers = [FrameReader]()
        for (index, start) in runStarts.enumerated() {
            let stop = index + 1 < runStarts.count ? runStarts[index + 1] : end
            readers.append(FrameReader(range: start..<stop, file: file, memory: memory, path: folder.child(name)))
        }
        var heap = RunHeap(readers: readers)
        try heap.start()
        var out: [UInt8] = []
        out.reserveCapacity(66 << 10)
        var first = true
        while try heap.next(into: &out, comma: !first) {
            first = false
            if out.count >= 64 << 10 {
                try emit(out)
                out.removeAll(keepingCapacity: true)
            }
        }
        if !out.isEmpty { try emit(out) }
    }
}

/// The frames of one run, read 64 KiB at a time from the list's file, or from its memory when it has no file.
private struct FrameReader {
    private var position: UInt64
    private let end: UInt64
    private let file: Descriptor?
    private let memory: [UInt8]
    private let path: String
    /// Bytes read and not consumed: ``buffer``[``consumed``...].
    private var buffer: [UInt8] = []
    private var consumed = 0
    /// The current frame's path and object in ``buffer``.
    private var pathRange = 0..<0
    private var objectRange = 0..<0

    init(range: Range<UInt64>, file: Descriptor?, memory: [UInt8], path: String) {
        position = range.lowerBound
        end = range.upperBound
        self.file = file
        self.memory = memory
        self.path = path
    }

    /// Steps to the next frame; false at the end of the run.
    mutating func advance() throws(AssetPackError) -> Bool {
        consumed = objectRange.upperBound
        guard try fill(8) else { return false }
        let pathLength = Int(load(at: consumed)), objectLength = Int(load(at: consumed + 4))
        guard try fill(8 + pathLength + objectLength) else {
            throw AssetPackError(.io, "the record's temporary list ends inside an entry", path: path)
        }
        pathRange = consumed + 8..<consumed + 8 + pathLength
        objectRange = pathRange.upperBound..<pathRange.upperBound + objectLength
        return true
    }

    /// `body` of the current frame's path.
    func withPath<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        buffer.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[pathRange])) }
    }

    /// Appends the current frame's object to `out`.
    func appendObject(to out: inout [UInt8]) {
        buffer.withUnsafeBufferPointer { out.append(contentsOf: UnsafeBufferPointer(rebasing: $0[objectRange])) }
    }

    private func load(at offset: Int) -> UInt32 {
        buffer.withUnsafeBytes { UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: UInt32.self)) }
    }

    /// Makes `count` bytes from ``consumed`` available, reading on; false when the run has fewer left.
    private mutating func fill(_ count: Int) throws(AssetPackError) -> Bool {
        if buffer.count - consumed >= count { return true }
        buffer.removeSubrange(0..<consumed)
        consumed = 0
        pathRange = 0..<0
        objectRange = 0..<0
        let want = Int(min(UInt64(max(count, 64 << 10) - buffer.count), end - position))
        guard buffer.count + want >= count else { return false }
        if let file {
            let old = buffer.count
            buffer.append(contentsOf: repeatElement(0, count: want))
            let got = try buffer.withUnsafeMutableBytes { raw in
                Result { () throws(AssetPackError) -> Int in
                    try io(file.fd.read(at: position, into: UnsafeMutableRawBufferPointer(rebasing: raw[old...]), path: path))
                }
            }.get()
            guard got == want else {
                throw AssetPackError(.io, "the record's temporary list is shorter than was written", path: path)
            }
        } else {
            buffer.append(contentsOf: memory[Int(position)..<Int(position) + want])
        }
        position += UInt64(want)
        return true
    }
}

/// The runs' readers, the one whose current path comes first on top: a k-way merge.
private struct RunHeap {
    private var readers: [FrameReader]
    private var heap: [Int] = []

    init(readers: [FrameReader]) { self.readers = readers }

    /// Reads each run's first frame.
    mutating func start() throws(AssetPackError) {
        for index in readers.indices where try readers[index].advance() { push(index) }
    }

    /// Appends the next object in path order to `out`, after a comma when `comma`; false at the end.
    mutating func next(into out: inout [UInt8], comma: Bool) throws(AssetPackError) -> Bool {
        guard let top = heap.first else { return false }
        if comma { out.append(UInt8(ascii: ",")) }
        readers[top].appendObject(to: &out)
        if try readers[top].advance() { siftDown(0) } else { removeTop() }
        return true
    }

    private func precedes(_ one: Int, _ other: Int) -> Bool {
        readers[one].withPath { a in readers[other].withPath { b in AssetPath.precedes(a, b) || (!AssetPath.precedes(b, a) && one < other) } }
    }

    private mutating func push(_ index: Int) {
        heap.append(index)
        var child = heap.count - 1
        while child > 0, precedes(heap[child], heap[(child - 1) / 2]) {
            heap.swapAt(child, (child - 1) / 2)
            child = (child - 1) / 2
        }
    }

    private mutating func removeTop() {
        heap.swapAt(0, heap.count - 1)
        heap.removeLast()
        if !heap.isEmpty { siftDown(0) }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            var first = parent
            for child in [2 * parent + 1, 2 * parent + 2] where child < heap.count && precedes(heap[child], heap[first]) {
                first = child
            }
            guard first != parent else { return }
            heap.swapAt(parent, first)
            parent = first
        }
    }
}
