import AssetPack
import AssetPackZip
import Foundation
import Testing

/// The one conformance checker every ``AssetSource`` must pass: `source` must present exactly `tree`
/// through each call it offers — `list` and `open` (as Android's `AssetManager` does: `[]` for files and
/// missing paths, not-found for directories and missing paths), and, when the source has them,
/// `size(of:)`, `randomAccess` and the files of its `storage` folder (`filePath`) — a walk must find
/// exactly the tree's items, and files read from several threads at once must all read back intact.
/// - Parameter randomAccessFiles: when given, exactly these files must offer random access.
package func checkConformance(of source: any AssetSource, to tree: AssetTree, randomAccessFiles: Set<String>? = nil,
                      sourceLocation: SourceLocation = #_sourceLocation) throws {
    try checkListing(source, tree, sourceLocation)
    try checkOpening(source, tree, sourceLocation)
    if let sized = source as? any SizedAssetSource { try checkSizes(sized, tree, sourceLocation) }
    if let random = source as? any RandomAccessAssetSource {
        try checkRandomAccess(random, tree, expected: randomAccessFiles, sourceLocation)
    }
    if case .folder(let root) = source.storage { try checkFilePaths(DirectorySource(root: root), tree, sourceLocation) }
    #expect(try AssetWalker(source).walk() == tree.items, sourceLocation: sourceLocation)
    checkConcurrentReads(source, tree, sourceLocation)
}

/// Paths that are in no tree: a sibling, a child of a file, a child of an empty directory.
private func missingPaths(_ tree: AssetTree) throws -> [AssetPath] {
    let candidates = ["missing", "a.txt/child", "nested/nope", "empty/nope", "データ/nope.txt"]
    return try candidates.filter { tree.files[$0] == nil && !tree.directories.contains($0) }.map { try AssetPath($0) }
}

private func checkListing(_ source: any AssetSource, _ tree: AssetTree, _ location: SourceLocation) throws {
    for directory in tree.directories.union([""]) {
        let names = try source.list(try AssetPath(directory))
        #expect(Set(names) == tree.children(of: directory), "list(\(directory))", sourceLocation: location)
        #expect(names.count == Set(names).count, "list(\(directory)) repeats a name", sourceLocation: location)
    }
    for file in tree.files.keys {
        #expect(try source.list(try AssetPath(file)) == [], "list(\(file)) of a file", sourceLocation: location)
    }
    for missing in try missingPaths(tree) {
        #expect(try source.list(missing) == [], "list(\(missing)) of a missing path", sourceLocation: location)
    }
}

private func checkOpening(_ source: any AssetSource, _ tree: AssetTree, _ location: SourceLocation) throws {
    for (file, bytes) in tree.files {
        let read = try source.open(try AssetPath(file)).readAll()
        #expect(read == bytes, "open(\(file)) reads \(read.count) bytes", sourceLocation: location)
    }
    let notFiles = try tree.directories.union([""]).map { try AssetPath($0) } + missingPaths(tree)
    for path in notFiles {
        let error = #expect(throws: AssetPackError.self, "open(\(path))", sourceLocation: location) { try source.open(path) }
        #expect(error?.code == .notFound, "open(\(path)): \(String(describing: error))", sourceLocation: location)
    }
}

private func checkSizes(_ source: any SizedAssetSource, _ tree: AssetTree, _ location: SourceLocation) throws {
    for (file, bytes) in tree.files {
        #expect(try source.size(of: try AssetPath(file)) == UInt64(bytes.count), "size(\(file))", sourceLocation: location)
    }
    for path in try tree.directories.union([""]).map({ try AssetPath($0) }) + missingPaths(tree) {
        #expect(try source.size(of: path) == nil, "size(\(path)) of a non-file", sourceLocation: location)
    }
}

private func checkRandomAccess(_ source: any RandomAccessAssetSource, _ tree: AssetTree, expected: Set<String>?,
                               _ location: SourceLocation) throws {
    var offered: Set<String> = []
    for (file, bytes) in tree.files {
        guard let random = try source.randomAccess(try AssetPath(file)) else { continue }
        offered.insert(file)
        #expect(random.size == UInt64(bytes.count), "randomAccess(\(file)).size", sourceLocation: location)
        #expect(try readAll(random) == bytes, "randomAccess(\(file)) bytes", sourceLocation: location)
        #expect(try readTail(random, 10) == Array(bytes.suffix(10)), "randomAccess(\(file)) tail", sourceLocation: location)
    }
    if let expected { #expect(offered == expected, "files offering random access", sourceLocation: location) }
    for path in try missingPaths(tree) {
        let error = #expect(throws: AssetPackError.self, sourceLocation: location) { try source.randomAccess(path) }
        #expect(error?.code == .notFound, sourceLocation: location)
    }
}

private func checkFilePaths(_ source: DirectorySource, _ tree: AssetTree, _ location: SourceLocation) throws {
    for (file, bytes) in tree.files {
        let path = try #require(source.filePath(try AssetPath(file)), "filePath(\(file))", sourceLocation: location)
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: path))) == bytes, sourceLocation: location)
    }
    for path in try tree.directories.union([""]).map({ try AssetPath($0) }) + missingPaths(tree) {
        #expect(source.filePath(path) == nil, "filePath(\(path)) of a non-file", sourceLocation: location)
    }
}

/// Sources must be usable from several threads at once: read every file on 4 threads together.
private func checkConcurrentReads(_ source: any AssetSource, _ tree: AssetTree, _ location: SourceLocation) {
    let files = Array(tree.files)
    let failures = Tally()
    DispatchQueue.concurrentPerform(iterations: files.count * 4) { index in
        let (file, bytes) = files[index % files.count]
        let read = try? source.open(AssetPath(file)).readAll()
        if read != bytes { failures.add(opens: 1) }
    }
    #expect(failures.opens == 0, "files read wrongly on several threads", sourceLocation: location)
}

/// Every byte of `source`, read with positioned reads in odd-sized chunks.
package func readAll(_ source: any RandomAccessSource) throws -> [UInt8] {
    var result: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 7_001)
    while true {
        let offset = UInt64(result.count)
        let count = try chunk.withUnsafeMutableBytes { (buffer) throws(ZipError) -> Int in try source.read(into: buffer, at: offset) }
        if count == 0 { return result }
        result.append(contentsOf: chunk[0..<count])
    }
}

/// The last `count` bytes, asked for with a larger buffer than remains (a short read at the end).
private func readTail(_ source: any RandomAccessSource, _ count: Int) throws -> [UInt8] {
    let start = source.size - UInt64(min(UInt64(count), source.size))
    var buffer = [UInt8](repeating: 0, count: count + 50)
    let got = try buffer.withUnsafeMutableBytes { (raw) throws(ZipError) -> Int in try source.read(into: raw, at: start) }
    return Array(buffer[0..<got])
}
