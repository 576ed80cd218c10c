import AssetPackZip

extension ContainerCheck {
    /// What kind of container a bundle is in, which decides what is checked.
    public enum Layout: String, Sendable {
        /// An APK (`AndroidManifest.xml` at the top): everything is checked.
        case apk
        /// An Android App Bundle module (`MODULE/assets/…`): stored is checked; alignment is bundletool's.
        case appBundle = "aab"
        /// An iOS app archive (`Payload/NAME.app/…`), unpacked at install: only the files are compared.
        case ipa
        /// Any other zip, read in place (``ZipAssetSource``): everything is checked.
        case zip

        /// The layout of the bundle at `root` of `archive`.
        static func of(_ root: String, in archive: ZipArchive) -> Layout {
            let parts = root.split(separator: "/")
            if parts.count >= 2, parts[0] == "Payload", parts[1].hasSuffix(".app") { return .ipa }
            if parts.count >= 2, parts[1] == "assets", archive.entry(named: "\(parts[0])/manifest/AndroidManifest.xml") != nil {
                return .appBundle
            }
            return archive.entry(named: "AndroidManifest.xml") != nil ? .apk : .zip
        }

        /// True when the packing archives must be stored by the container.
        public var checksStorage: Bool { self != .ipa }
        /// True when stored data must be aligned.
        public var checksAlignment: Bool { self == .apk || self == .zip }
    }
}
