import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// `assetpack keygen`, `sign`, `build --sign` and `expand URL` as a user runs them: files on disk, exit statuses
/// (`untrusted` 79, `network` 69, usage 64) and the one stderr line naming the URL and the reason.
@Suite struct RemoteCLITests {
    let tool = builtProduct("assetpack")

    @Test func keygenWritesAPrivateKeyOnlyItsOwnerReadsAndNeverReplacesOne() throws {
        let scratch = try TemporaryDirectory("cli-keygen")
        let made = try run(tool, ["keygen", "--out", "release.key"], cwd: scratch.path)
        #expect(made.status == 0, "\(made.stderr)")
        let mode = try FileManager.default.attributesOfItem(atPath: scratch.file("release.key"))[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(try String(contentsOfFile: scratch.file("release.key.pub"), encoding: .utf8).hasPrefix("assetpack ed25519 public key\n"))
        let again = try run(tool, ["keygen", "--out", "release.key"], cwd: scratch.path)
        #expect(again.status == 64)
        #expect(again.stderr == "assetpack: error: release.key.pub: a file is already there; a key file is never replaced\n")
        let nowhere = try run(tool, ["keygen", "--out", "keys/k"], cwd: scratch.path)
        #expect(nowhere.status == 66)
        #expect(nowhere.stderr == "assetpack: error: keys: no such folder to write the keys into\n")
        #expect(try run(tool, ["keygen", "--out", "k"], cwd: scratch.path).status == 0, "a one-letter name")
        let json = try run(tool, ["keygen", "--out", "json.key", "--json"], cwd: scratch.path)
        let keyID = try Self.keyID(json.stdout)
        #expect(json.status == 0 && keyID.count == 16)
        #expect(json.stdout == #"{"command":"keygen","keyID":"\#(keyID)","ok":true,"privateKey":"\#(scratch.file("json.key"))","#
                + #""publicKey":"\#(scratch.file("json.key.pub"))","schema":1}"# + "\n")
    }

    /// The `keyID` of a JSON line.
    static func keyID(_ line: String) throws -> String {
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        return try #require(object?["keyID"] as? String)
    }

    @Test func buildSignAndSignWriteTheSignatureBesideTheManifest() throws {
        let scratch = try TemporaryDirectory("cli-sign")
        try ExpandCLITests.write(["a.txt": Array("a\n".utf8)], to: scratch.file("src"))
        #expect(try run(tool, ["keygen", "--out", "k", "-q"], cwd: scratch.path).status == 0)
        let built = try run(tool, ["build", "src", "-o", "app.bundle", "--sign", "k", "-q"], cwd: scratch.path)
        #expect(built.status == 0, "\(built.stderr)")
        let signature = try String(contentsOfFile: scratch.file("app.bundle/assetpack-meta/manifest.sig"), encoding: .utf8)
        #expect(signature.hasPrefix("assetpack ed25519 signature 2\nkey "))
        try FileManager.default.removeItem(atPath: scratch.file("app.bundle/assetpack-meta/manifest.sig"))
        let signed = try run(tool, ["sign", "app.bundle", "--key", "k"], cwd: scratch.path)
        #expect(signed.status == 0, "\(signed.stderr)")
        #expect(try String(contentsOfFile: scratch.file("app.bundle/assetpack-meta/manifest.sig"), encoding: .utf8) == signature)
        let json = try run(tool, ["sign", "app.bundle", "--key", "k", "--json"], cwd: scratch.path)
        let keyID = try Self.keyID(json.stdout)
        #expect(json.status == 0 && keyID.count == 16)
        #expect(json.stdout == #"{"bundle":"\#(scratch.file("app.bundle"))","command":"sign","keyID":"\#(keyID)","ok":true,"#
                + #""schema":1,"signature":"\#(scratch.file("app.bundle/assetpack-meta/manifest.sig"))"}"# + "\n")
        let nothing = try run(tool, ["sign", "src", "--key", "k"], cwd: scratch.path)
        #expect(nothing.status == 66)
        #expect(try run(tool, ["build", "src", "--archive", "a.zip", "--sign", "k"], cwd: scratch.path).status == 64)
    }

    @Test func expandFromAServerInstallsATrustedBundleAndRefusesAnUntrustedOne() async throws {
        try ExternalTool.nginx.require()
        let server = try await NginxServer()
        let scratch = try TemporaryDirectory("cli-remote")
        try ExpandCLITests.write(["a.txt": Array("a\n".utf8), "b/c.txt": Array("c\n".utf8)], to: scratch.file("src"))
        #expect(try run(tool, ["keygen", "--out", "k", "-q"], cwd: scratch.path).status == 0)
        #expect(try run(tool, ["keygen", "--out", "other", "-q"], cwd: scratch.path).status == 0)
        #expect(try run(tool, ["build", "src", "-o", server.root + "/app.bundle", "--sign", "k", "-q"], cwd: scratch.path).status == 0)
        let url = server.url("app.bundle").absoluteString
        let installed = try run(tool, ["expand", url, "--to", "out", "--allow-http", "--public-key", "k.pub"], cwd: scratch.path)
        #expect(installed.status == 0, "\(installed.stderr)")
        #expect(ExpandCLITests.digest(ExpandCLITests.read(scratch.file("out"))) == ExpandCLITests.digest(ExpandCLITests.read(scratch.file("src"))))
        let again = try run(tool, ["expand", url, "--to", "out", "--allow-http", "--public-key", "k.pub"], cwd: scratch.path)
        #expect(again.stdout == scratch.file("out") + " is up to date\n")
        let untrusted = try run(tool, ["expand", url, "--to", "other-out", "--allow-http", "--public-key", "other.pub"], cwd: scratch.path)
        #expect(untrusted.status == 79)
        #expect(untrusted.stderr.hasPrefix("assetpack: error: \(url)/assetpack-meta/manifest.json: the manifest is signed by key "))
        #expect(untrusted.stderr.split(separator: "\n").count == 1)
        #expect(!FileManager.default.fileExists(atPath: scratch.file("other-out")))
        let plain = try run(tool, ["expand", url, "--to", "other-out", "--public-key", "k.pub"], cwd: scratch.path)
        #expect(plain.status == 64)
        #expect(plain.stderr.contains("plain http:// is not allowed: use https://, or on a trusted network allow plain HTTP (--allow-http"))
        let tls = try run(tool, ["expand", url.replacingOccurrences(of: "http://", with: "https://"), "--to", "other-out",
                                 "--public-key", "k.pub"], cwd: scratch.path)
        #expect(tls.status == 69)
        #expect(tls.stderr.contains(": the server does not speak TLS (an https:// address of a plain HTTP server?)"), "\(tls.stderr)")
        let unchecked = try run(tool, ["expand", url, "--to", "other-out", "--allow-http"], cwd: scratch.path)
        #expect(unchecked.status == 64)
        #expect(unchecked.stderr.contains("needs --public-key KEYFILE.pub or --identity HEX"))
    }

    @Test func aServerOutOfReachIsANetworkError() throws {
        let (socket, port) = try LoopbackSocket.bound()
        defer { close(socket) }
        let scratch = try TemporaryDirectory("cli-remote-down")
        let pin = String(repeating: "0", count: 64)
        let url = "http://127.0.0.1:\(port)/app.bundle"
        let result = try run(tool, ["expand", url, "--to", "out", "--allow-http", "--identity", pin], cwd: scratch.path)
        #expect(result.status == 69)
        #expect(result.stderr.hasPrefix("assetpack: error: \(url)/assetpack-meta/identity: "))
        #expect(result.stderr.contains("gave up after"))
        #expect(!FileManager.default.fileExists(atPath: scratch.file("out")))
    }

    /// One identity: what `build --json` prints is the bundle's identity file, what `expand --json` and `status`
    /// print, and what `--identity` takes (also in the form earlier versions printed); a tree whose record has
    /// that earlier form stays up to date.
    @Test func oneIdentityIsPrintedRecordedAndPinned() async throws {
        try ExternalTool.nginx.require()
        let server = try await NginxServer()
        let scratch = try TemporaryDirectory("cli-identity")
        try ExpandCLITests.write(["a.txt": Array("a\n".utf8)], to: scratch.file("src"))
        let built = try run(tool, ["build", "src", "-o", server.root + "/app.bundle", "--json"], cwd: scratch.path)
        let object = try JSONSerialization.jsonObject(with: Data(built.stdoutBytes)) as? [String: Any]
        let identity = try #require(object?["identity"] as? String)
        #expect(try String(contentsOfFile: server.root + "/app.bundle/assetpack-meta/identity", encoding: .utf8) == identity)
        let local = try run(tool, ["expand", server.root + "/app.bundle", "--to", "local", "--json"], cwd: scratch.path)
        #expect(local.stdout.contains(#""identity":"\#(identity)""#))
        #expect(try String(contentsOfFile: scratch.file("local/.assetpack/identity"), encoding: .utf8) == identity + "\n")
        let url = server.url("app.bundle").absoluteString
        for (pin, out) in [(identity, "out"), ("assetpack-1 manifest " + identity, "old-form")] {
            let pinned = try run(tool, ["expand", url, "--to", out, "--allow-http", "--identity", pin, "-q"], cwd: scratch.path)
            #expect(pinned.status == 0, "\(pinned.stderr)")
        }
        let other = String(repeating: "0", count: 64)
        let refused = try run(tool, ["expand", url, "--to", "refused", "--allow-http", "--identity", other], cwd: scratch.path)
        #expect(refused.status == 79)
        #expect(refused.stderr == "assetpack: error: \(url)/assetpack-meta/manifest.json: the bundle's identity is \(identity), "
                + "but \(other) is pinned\n")
        // A record written before: `assetpack-1 manifest <identity>`.
        try Data("assetpack-1 manifest \(identity)\n".utf8).write(to: URL(fileURLWithPath: scratch.file("local/.assetpack/identity")))
        let again = try run(tool, ["expand", server.root + "/app.bundle", "--to", "local"], cwd: scratch.path)
        #expect(again.stdout == scratch.file("local") + " is up to date\n")
        let status = try run(tool, ["status", "local", "--source", server.root + "/app.bundle"], cwd: scratch.path)
        #expect(status.status == 0)
        #expect(status.stdout.split(separator: "\n").dropFirst().first == "  identity: \(identity)")
    }
}
