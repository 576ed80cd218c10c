import Foundation

/// A fresh directory under the system temporary folder, removed when the value is deinitialized.
public final class TemporaryDirectory: @unchecked Sendable {
    /// The directory's path.
    public let path: String

    /// Creates `$TMPDIR/assetpack-tests-<label>-<uuid>`.
    public init(_ label: String = "t") throws {
        let base = FileManager.default.temporaryDirectory.path
        path = "\(base)/assetpack-tests-\(label)-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// `path/relative`.
    public func url(_ relative: String) -> URL { URL(fileURLWithPath: path).appendingPathComponent(relative) }

    /// `path/relative` as a string.
    public func file(_ relative: String) -> String { path + "/" + relative }

    /// Writes `bytes` to `relative`, creating parent folders.
    @discardableResult
    public func write(_ relative: String, _ bytes: [UInt8]) throws -> String {
        let target = file(relative)
        try FileManager.default.createDirectory(atPath: (target as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: target))
        return target
    }

    /// Writes UTF-8 text to `relative`.
    @discardableResult
    public func write(_ relative: String, text: String) throws -> String { try write(relative, Array(text.utf8)) }
}

/// The outcome of running a command.
public struct CommandResult: Sendable {
    /// The exit status (or 128 + signal).
    public var status: Int32
    /// Everything written to standard output.
    public var stdout: String
    /// Everything written to standard error.
    public var stderr: String
    /// Standard output's raw bytes.
    public var stdoutBytes: [UInt8]
}

/// Runs `executable` (a path, or a name looked up on PATH) with `arguments`, waiting for it to end.
@discardableResult
public func run(_ executable: String, _ arguments: [String], cwd: String? = nil, stdin: [UInt8]? = nil,
                environment: [String: String]? = nil) throws -> CommandResult {
    let process = Process()
    if executable.contains("/") {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
    } else {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [executable] + arguments
    }
    if let cwd { process.currentDirectoryURL = URL(fileURLWithPath: cwd) }
    if let environment { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
    let out = Pipe(), err = Pipe(), input = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = input
    try process.run()
    if let stdin { input.fileHandleForWriting.write(Data(stdin)) }
    try input.fileHandleForWriting.close()
    // Drain both pipes concurrently so a chatty child cannot block.
    nonisolated(unsafe) var errData = Data()
    let group = DispatchGroup()
    group.enter()
    DispatchQueue.global().async {
        errData = err.fileHandleForReading.readDataToEndOfFile()
        group.leave()
    }
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    group.wait()
    process.waitUntilExit()
    let status = process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
    return CommandResult(status: status, stdout: String(decoding: outData, as: UTF8.self),
                         stderr: String(decoding: errData, as: UTF8.self), stdoutBytes: [UInt8](outData))
}

/// True when `name` is an executable on PATH.
public func toolExists(_ name: String) -> Bool {
    (try? run("/bin/sh", ["-c", "command -v \(name)"]).status) == 0
}

/// A small, fast, seeded pseudo-random generator (SplitMix64) so generated test data reproduces.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator that always produces the same sequence for the same seed.
    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// `count` random bytes (incompressible).
    public mutating func bytes(_ count: Int) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: count)
        var index = 0
        while index < count {
            var word = next()
            for _ in 0..<8 where index < count {
                result[index] = UInt8(truncatingIfNeeded: word)
                word >>= 8
                index += 1
            }
        }
        return result
    }

    /// `count` bytes of word-like text that compresses about 3:1.
    public mutating func text(_ count: Int) -> [UInt8] {
        let words = ["asset", "pack", "zip", "frog", "level", "model", "dictionary", "木", "データ", "menu", "row",
                     "section", "the", "and", "of", "image", "launch", "storage", "\n"]
        var result: [UInt8] = []
        result.reserveCapacity(count + 16)
        while result.count < count {
            result.append(contentsOf: words[Int(next() % UInt64(words.count))].utf8)
            result.append(0x20)
        }
        return Array(result.prefix(count))
    }
}

/// The path of a built product (e.g. the `assetpack` executable) next to the test bundle.
public func builtProduct(_ name: String) -> String {
    // Test bundles live in .build/<triple>/debug/; products sit beside them.
    var directory = URL(fileURLWithPath: CommandLine.arguments.first ?? ".").deletingLastPathComponent()
    for _ in 0..<4 {
        let candidate = directory.appendingPathComponent(name).path
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        directory = directory.deletingLastPathComponent()
    }
    return name
}

/// ``run(_:_:cwd:stdin:environment:)`` on a thread of its own, for an async test: a long command must not hold
/// one of the few threads async tests run on (two on a 2-core machine), or other tests starve meanwhile.
public func runOnOwnThread(_ executable: String, _ arguments: [String],
                           environment: [String: String]? = nil) async throws -> CommandResult {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread {
            continuation.resume(with: Result { try run(executable, arguments, environment: environment) })
        }
    }
}
