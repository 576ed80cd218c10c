@testable import AssetPackRemote
import Foundation
import Testing

/// Which server the next request of a fetch goes to (``MirrorRotation``): a failure moves on at once to a server not
/// failed in this round, a round where every server failed asks for a wait, a left-out server is never asked again.
@Suite struct MirrorRotationTests {
    static let urls = ["a", "b", "c"].map { URL(string: "http://\($0).example/app.bundle/f")! }

    static func rotation() -> MirrorRotation {
        MirrorRotation(.file(urls[0], size: 1, sha256: nil, mirrors: Array(urls.dropFirst())))
    }

    @Test func failuresMoveOnAtOnceUntilEveryServerFailedThenARoundStartsAfterAWait() {
        var servers = Self.rotation()
        #expect(servers.failed(progressed: false) && servers.url == Self.urls[1])
        #expect(servers.failed(progressed: false) && servers.url == Self.urls[2])
        #expect(!servers.failed(progressed: false) && servers.url == Self.urls[0], "all three failed: wait, then a")
        #expect(servers.failed(progressed: false) && servers.url == Self.urls[1])
        #expect(servers.failed(progressed: true) && servers.url == Self.urls[2], "bytes came: a new round")
        #expect(servers.failed(progressed: false) && servers.url == Self.urls[0])
    }

    @Test func aServerLeftOutIsNeverAskedAgainAndTheLastOneStays() {
        var servers = Self.rotation()
        #expect(servers.leaveOut() && servers.url == Self.urls[1])
        #expect(servers.failed(progressed: false) && servers.url == Self.urls[2])
        #expect(!servers.failed(progressed: false) && servers.url == Self.urls[1], "a is out: the round is b and c")
        #expect(servers.leaveOut() && servers.url == Self.urls[2])
        #expect(!servers.leaveOut() && servers.url == Self.urls[2], "no other server is left")
        #expect(!servers.failed(progressed: false) && servers.url == Self.urls[2])
    }

    @Test func aSingleServerWaitsAfterEachFailure() {
        var servers = MirrorRotation(.file(Self.urls[0], size: 1, sha256: nil))
        #expect(!servers.failed(progressed: false) && servers.url == Self.urls[0])
        #expect(!servers.failed(progressed: true) && !servers.leaveOut() && servers.url == Self.urls[0])
    }
}
