import Foundation
import Testing
import TestSupport

/// The progress line on a terminal and Ctrl-C, run under a pseudo-terminal (Python's `pty`) so that the
/// binary sees a real terminal on stderr; stdout stays a pipe.
@Suite struct TerminalCLITests {
    let tool = builtProduct("assetpack")

    /// 24 files of 40 KB: enough for a progress line, quick to write.
    static let tree: ExpandCLITests.Files = {
        var random = SeededRandom(seed: 77)
        var files: ExpandCLITests.Files = [:]
        for index in 0..<24 { files["part\(index % 3)/file\(index).bin"] = random.bytes(40_000) }
        return files
    }()

    /// Runs the tool with stderr on a pseudo-terminal; its stderr comes back with `\r\n` line ends (the
    /// terminal's). Skipped without Python.
    /// `columns`, when given, is the terminal's width (`TIOCSWINSZ`), which counts before `$COLUMNS`.
    func onTerminal(_ arguments: [String], cwd: String, environment: [String: String] = [:],
                    columns: Int = 0) throws -> (status: Int, stdout: String, stderr: String) {
        try ExternalTool.python3.require()
        let script = """
            import fcntl, json, os, pty, struct, subprocess, sys, termios
            master, slave = pty.openpty()
            fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, \(columns), 0, 0))
            env = dict(os.environ); env.update(json.loads(sys.argv[1]))
            child = subprocess.Popen(sys.argv[2:], stdout=subprocess.PIPE, stderr=slave, stdin=subprocess.DEVNULL, env=env)
            os.close(slave)
            err = b""
            while True:
                try:
                    chunk = os.read(master, 65536)
                except OSError:
                    break
                if not chunk:
                    break
                err += chunk
            out = child.stdout.read()
            print(json.dumps({"status": child.wait(), "stdout": out.decode(), "stderr": err.decode()}))
            """
        let settings = String(decoding: try JSONEncoder().encode(environment.merging(["COLUMNS": "100"]) { $1 }), as: UTF8.self)
        let result = try run("python3", ["-c", script, settings, tool] + arguments, cwd: cwd)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(result.stdoutBytes)) as? [String: Any],
                                  "\(result.stderr)")
        return (report["status"] as? Int ?? -1, report["stdout"] as? String ?? "", report["stderr"] as? String ?? "")
    }

    /// The states the line was drawn in: what follows each `\r` (the erase sequence included).
    static func draws(_ stderr: String) -> [String] {
        stderr.split(separator: "\r", omittingEmptySubsequences: true).map(String.init)
    }

    @Test func theLineShowsPlanningBytesRateTimeLeftFlushingAndIsClearedAtTheEnd() throws {
        let scratch = try TemporaryDirectory("cli-tty")
        try ExpandCLITests.write(Self.tree, to: scratch.file("src"))
        let result = try onTerminal(["expand", "src", "--to", "out", "--jobs", "1"], cwd: scratch.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("expanded 24 files (937.5 KiB) into \(scratch.file("out")) in "))
        let draws = Self.draws(result.stderr)
        #expect(draws.first == "planning…\u{1B}[K")
        #expect(draws.dropFirst().first == "[....................]  0 B / 937.5 KiB  0/24 files  -- B/s  ETA --:--\u{1B}[K")
        #expect(draws.suffix(2) == ["[####################]  937.5 KiB / 937.5 KiB  flushing to disk…\u{1B}[K", "\u{1B}[K"])
        let writing = #"^\[[#.]{20}\]  [0-9.]+ (B|KiB) / 937\.5 KiB  [0-9]+/24 files  ([0-9.]+ (B|KiB|MiB)|--  ?B)/s  ETA ([0-9]+:)?[0-9-]+:[0-9-]{2}(  part[0-2]/file[0-9]+\.bin)?\u{1B}\[K$"#
        for draw in draws.dropFirst(2).dropLast(2) {
            #expect(draw.range(of: writing, options: .regularExpression) != nil, "\(draw.debugDescription)")
        }
    }

    /// The line fits the terminal's own width (`TIOCGWINSZ`), which wins over `$COLUMNS`: never longer than 39
    /// characters on 40 columns.
    @Test func theLineFitsTheTerminalsWidth() throws {
        let scratch = try TemporaryDirectory("cli-tty-width")
        try ExpandCLITests.write(Self.tree, to: scratch.file("src"))
        let result = try onTerminal(["expand", "src", "--to", "out", "--jobs", "1"], cwd: scratch.path, columns: 40)
        #expect(result.status == 0, "\(result.stderr)")
        let draws = Self.draws(result.stderr).map { $0.replacingOccurrences(of: "\u{1B}[K", with: "") }
        #expect(draws.dropFirst().first == "0 B / 937.5 KiB  0/24 files  ETA --:--")
        for draw in draws { #expect(draw.count <= 39, "\(draw.debugDescription)") }
    }

    /// `--progress` with stderr on a pipe: a plain line per update, fitted to `$COLUMNS` (40 or 200), at most
    /// one a second once writing runs; at 200 columns a build's line names the file.
    @Test(arguments: [40, 200]) func progressOnAPipeIsOneLinePerUpdateFittedToColumns(_ columns: Int) throws {
        let scratch = try TemporaryDirectory("cli-progress-pipe")
        try ExpandCLITests.write(Self.tree, to: scratch.file("src"))
        for arguments in [["expand", "src", "--to", "out"], ["build", "src", "-o", "app.bundle"]] {
            let result = try run(tool, arguments + ["--progress", "--jobs", "1"], cwd: scratch.path,
                                 environment: ["COLUMNS": "\(columns)"])
            #expect(result.status == 0, "\(result.stderr)")
            let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            #expect(!result.stderr.contains("\r") && !result.stderr.contains("\u{1B}") && result.stderr.hasSuffix("\n"))
            #expect(lines.contains { $0.contains("/24 files") }, "\(lines)")
            for line in lines { #expect(line.count <= columns - 1, "\(line.debugDescription)") }
            if columns == 200 && arguments[0] == "build" { #expect(lines.contains { $0.range(of: #"/24 files  .*  part[0-2]/file[0-9]+\.bin$"#, options: .regularExpression) != nil }, "\(lines)") }
        }
        let quiet = try run(tool, ["expand", "src", "--to", "out2", "--progress", "-q"], cwd: scratch.path)
        #expect(quiet.status == 64)
        #expect(quiet.stderr == "assetpack: error: --progress shows progress on stderr; leave out --quiet. (see 'assetpack expand --help')\n")
    }

    @Test func ctrlCClearsTheLineSaysTheNextRunResumesAndItDoes() throws {
        let scratch = try TemporaryDirectory("cli-tty-interrupt")
        try ExpandCLITests.write(Self.tree, to: scratch.file("src"))
        let interrupted = try onTerminal(["expand", "src", "--to", "out", "--jobs", "1"], cwd: scratch.path,
                                         environment: ["ASSETPACK_TEST_INTERRUPT_AFTER_FILES": "5"])
        #expect(interrupted.status == 130)
        #expect(interrupted.stdout.isEmpty)
        #expect(interrupted.stderr.hasPrefix("\rplanning…\u{1B}[K\r["))
        #expect(interrupted.stderr.hasSuffix("\r\u{1B}[Kassetpack: interrupted; run the same command again to resume\r\n"))
        #expect(!FileManager.default.fileExists(atPath: scratch.file("out")))

        let resumed = try run(tool, ["expand", "src", "--to", "out", "--json"], cwd: scratch.path)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(resumed.stdoutBytes)) as? [String: Any])
        #expect((report["filesResumed"] as? Int ?? 0) >= 5, "\(resumed.stdout)")
        #expect(ExpandCLITests.digest(ExpandCLITests.read(scratch.file("out"))) == ExpandCLITests.digest(Self.tree))
    }

    @Test func ctrlCWithoutATerminalIsOneLineAndWithJSONAJSONLine() throws {
        let scratch = try TemporaryDirectory("cli-interrupt")
        try ExpandCLITests.write(Self.tree, to: scratch.file("src"))
        let seam = ["ASSETPACK_TEST_INTERRUPT_AFTER_FILES": "3"]
        let text = try run(tool, ["expand", "src", "--to", "out", "--jobs", "1"], cwd: scratch.path, environment: seam)
        #expect(text.status == 130)
        #expect(text.stdout.isEmpty)
        #expect(text.stderr == "assetpack: interrupted; run the same command again to resume\n")
        let json = try run(tool, ["expand", "src", "--to", "out", "--jobs", "1", "--json"], cwd: scratch.path,
                           environment: ["ASSETPACK_TEST_INTERRUPT_AFTER_FILES": "1"])
        #expect(json.status == 130)
        #expect(json.stderr.isEmpty)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(json.stdoutBytes)) as? [String: Any])
        #expect(report["exitStatus"] as? Int == 130 && report["ok"] as? Bool == false)
        #expect((report["error"] as? [String: Any])?["class"] as? String == "interrupted")
        let build = try run(tool, ["build", "src", "-o", "b.bundle", "--jobs", "1"], cwd: scratch.path, environment: seam)
        #expect(build.status == 130)
        #expect(build.stderr == "assetpack: interrupted\n")
    }
}
