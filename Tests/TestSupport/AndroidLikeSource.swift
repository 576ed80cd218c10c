import AssetPack
import AssetPackZip
import Foundation

/// A test double that behaves as Android's `AssetManager` and offers nothing more: `list` and `open` over
/// an in-memory tree. `list` of a file or of a missing path returns `[]`, `open` of a directory or of a
/// missing path fails as not-found (`FileNotFoundException`). Names are listed in reverse byte order, so
/// tests prove that callers sort. ``tally`` counts opens and bytes read.
package struct AndroidLikeSource: AssetSource {
    package let name: String
    private let listings: [String: [String]]
    private let files: [String: [UInt8]]
    private let failures: [String: AssetPackError]
    /// What callers did with the files.
    package let tally = Tally()

    /// The tree holding `files` (path → contents) and the extra, possibly empty, `directories`.
    package init(files: [String: [UInt8]], directories: [String] = [], name: String = "android-like") {
        var listings: [String: Set<String>] = [:]
        for path in Array(files.keys) + directories {
            var parent = ""
            for part in path.split(separator: "/").map(String.init) {
                listings[parent, default: []].insert(part)
                parent = parent.isEmpty ? part : parent + "/" + part
            }
        }
        let reversed = listings.mapValues { $0.sorted { $1.utf8.lexicographicallyPrecedes($0.utf8) } }
        self.init(listings: reversed, files: files, name: name)
    }

    /// A tree given as raw listings (directory path → names, listed as given, hostile ones included),
    /// `files`, and `failures`: errors that `open` of those paths throws.
    package init(listings: [String: [String]], files: [String: [UInt8]], failures: [String: AssetPackError] = [:],
         name: String = "android-like") {
        self.listings = listings
        self.files = files
        self.failures = failures
        self.name = name
    }

    package func list(_ path: AssetPath) throws(AssetPackError) -> [String] {
        listings[path.string] ?? []
    }

    package func open(_ path: AssetPath) throws(AssetPackError) -> any ByteStream {
        if let failure = failures[path.string] { throw failure }
        guard let bytes = files[path.string] else {
            throw AssetPackError(.notFound, "FileNotFoundException", path: path.string)
        }
        tally.add(opens: 1)
        return CountingStream(MemoryStream(bytes), tally: tally)
    }
}

/// Counts shared between a source and its streams.
package final class Tally: @unchecked Sendable {
    private let lock = NSLock()
    private var openCount = 0
    private var byteCount = 0

    /// Successful opens so far.
    package var opens: Int { lock.withLock { openCount } }
    /// Bytes read from opened streams so far.
    package var bytesRead: Int { lock.withLock { byteCount } }

    package func add(opens: Int = 0, bytes: Int = 0) {
        lock.withLock {
            openCount += opens
            byteCount += bytes
        }
    }
}

/// A stream that reports the bytes read through it to a ``Tally``.
package final class CountingStream: ByteStream {
    private let base: any ByteStream
    private let tally: Tally

    package init(_ base: any ByteStream, tally: Tally) {
        self.base = base
        self.tally = tally
    }

    package func read(into buffer: UnsafeMutableRawBufferPointer) throws(ZipError) -> Int {
        let count = try base.read(into: buffer)
        tally.add(bytes: count)
        return count
    }
}
