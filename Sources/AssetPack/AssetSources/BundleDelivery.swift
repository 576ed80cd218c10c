/// Where the stored files of a bundle come from when they are not on this machine: a web server, a CDN.
/// The AssetPack library does no networking itself; `AssetPackRemote` implements this protocol over HTTP,
/// and tests may implement it over anything.
///
/// A delivery only moves bytes: asked for a stored file of the bundle, whole or as a byte range, it streams
/// them in order into a ``DeliverySink``. Inflating, checking and resuming are the installer's, so no
/// delivery can skip a check.
///
/// Calls come from the installer's worker threads, several at once, and block until the bytes are in:
/// implementations must be safe to call from several threads and must not need the calling thread to make
/// progress.
public protocol BundleDelivery: Sendable {
    /// A name for messages: the bundle's URL.
    var name: String { get }
    /// How many deliveries may usefully run at once: the installer writes up to this many files at once
    /// (at least as many as its ``ExpansionOptions/jobs``).
    var concurrency: Int { get }
    /// Whether and how the installer asks for the data of small packed files that lie close together in their
    /// archive with one request (split among them as it arrives): what a request costs against what a gap
    /// costs is the delivery's to know. Optional: the default, ``DeliveryCoalescing/none``, asks for each alone.
    var coalescing: DeliveryCoalescing { get }

    /// Streams the bytes `request` names into `sink`, blocking until they are all in and
    /// ``DeliverySink/finish()`` accepted them.
    ///
    /// When a transfer breaks off it continues from the first missing byte; when it must start over (the
    /// file changed on the server, or ``DeliverySink/finish()`` threw ``AssetPackError/Code/verification``) it
    /// calls ``DeliverySink/restart()`` first, and gives up after a bounded number of such restarts.
    /// - Throws: ``AssetPackError``: ``AssetPackError/Code/network`` when the server cannot be reached or keeps
    ///   failing, ``AssetPackError/Code/verification`` when the bytes never check out, `cancelled`, and the
    ///   sink's errors.
    func deliver(_ request: DeliveryRequest, into sink: any DeliverySink) throws(AssetPackError)

    /// How many requests the delivery of `request` takes when nothing fails: what a dry run counts
    /// (``InstallPreview/requestsToFetch``). Optional: the default is one.
    func requestCount(for request: DeliveryRequest) -> Int

    /// A new SHA-256 computation for the installer's checks of what this delivery brings. Optional: the
    /// default is the library's own portable SHA-256; a delivery that has a faster one (swift-crypto, with the
    /// CPU's SHA instructions) offers it here, since every delivered byte is hashed.
    func makeHasher() -> any ContentHasher
}

extension BundleDelivery {
    /// Each file asked for alone (``DeliveryCoalescing/none``).
    public var coalescing: DeliveryCoalescing { .none }

    /// One request per delivery.
    public func requestCount(for request: DeliveryRequest) -> Int { 1 }

    /// The library's own SHA-256 (``PortableHasher``).
    public func makeHasher() -> any ContentHasher { PortableHasher() }
}

/// One SHA-256 computation, fed in order.
public protocol ContentHasher: AnyObject {
    /// Adds bytes.
    func update(_ bytes: UnsafeRawBufferPointer)
    /// The digest of the bytes added so far, as 64 lowercase hex digits; the computation then starts over.
    func finalizeHex() -> String
}

/// The library's own SHA-256 as a ``ContentHasher``: portable, dependency-free, and slower than hardware
/// SHA (about 100–200 MB/s).
public final class PortableHasher: ContentHasher {
    private var hash = SHA256()

    /// A computation over no bytes yet.
    public init() {}

    public func update(_ bytes: UnsafeRawBufferPointer) { hash.update(bytes) }

    public func finalizeHex() -> String {
        defer { hash = SHA256() }
        return hash.finalizeHex()
    }
}

/// Bytes of one stored file of a bundle.
public struct DeliveryRequest: Sendable, Hashable {
    /// The stored file's path in the bundle (`/`-separated): a plain file or a packing archive, as the
    /// manifest's ``BundleManifest/Storage/file`` names it.
    public var file: String
    /// The bytes wanted within it; nil for the whole file.
    public var range: Range<UInt64>?
    /// How many bytes the delivery yields: the range's length, or the whole file's size.
    public var length: UInt64

    /// A request for `range` of `file` (the whole file, `length` bytes, when nil).
    public init(file: String, range: Range<UInt64>?, length: UInt64) {
        self.file = file
        self.range = range
        self.length = length
    }
}

/// How a ``BundleDelivery`` wants the data of nearby small files of one stored file asked for: as one request
/// from the first one's data to the last one's, gaps included.
public struct DeliveryCoalescing: Sendable, Hashable {
    /// Most bytes between two files' data that one request still spans (downloaded and dropped).
    public var maximumGap: UInt64
    /// Most bytes one request spans.
    public var maximumSpan: UInt64

    /// Requests that span gaps of up to `maximumGap` bytes and at most `maximumSpan` bytes in all.
    public init(maximumGap: UInt64, maximumSpan: UInt64) {
        (self.maximumGap, self.maximumSpan) = (maximumGap, maximumSpan)
    }

    /// Each file asked for alone.
    public static let none = DeliveryCoalescing(maximumGap: 0, maximumSpan: 0)
}

/// What a ``BundleDelivery`` streams bytes into: the installer's writer of one file or block, which checks
/// what it receives.
public protocol DeliverySink: AnyObject {
    /// Takes the next bytes, in order.
    func write(_ bytes: UnsafeRawBufferPointer) throws(AssetPackError)
    /// Forgets everything written: the next ``write(_:)`` is the first byte again.
    func restart() throws(AssetPackError)
    /// Called once every byte of the request is in. Throws ``AssetPackError/Code/verification`` when they do
    /// not check out (a byte flipped on the way): the delivery then fetches them again from the start.
    func finish() throws(AssetPackError)
}
