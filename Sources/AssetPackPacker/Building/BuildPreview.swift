import AssetPack

/// What a build would write (``Packer/preview(source:output:archive:)``, `assetpack build --dry-run`), decided
/// by the build's own rules (`BundlePlan`, `PackGrouping`) from a walk of the source: no file is read, nothing
/// is written. Bytes are the source files' own: what deflate saves is known only once they are packed.
public struct BuildPreview: Sendable, Equatable, Encodable {
    /// The source folder, and the bundle folder or archive that would be written.
    public var source: String
    public var output: String
    /// `folder` or `archive`.
    public var form: String
    /// Files and folders of the tree, and the files' bytes.
    public var files = 0
    public var directories = 0
    public var bytes: UInt64 = 0
    /// Folder form: files copied as they are, packed into a zip of their own, gathered into pack archives.
    public var copied = 0
    public var packed = 0
    public var gathered = 0
    /// Folder form: the pack archives the gathered files would go into.
    public var packs = 0
}

extension Packer {
    /// What ``build(source:output:progress:)`` (or, with `archive`, ``buildArchive(source:output:progress:)``)
    /// would write, refusing what they refuse of the source and the output's place; writes nothing.
    public func preview(source: String, output: String, archive: Bool) throws(AssetPackError) -> BuildPreview {
        try options.rules.validate()
        let location = try OutputLocation(output, form: archive ? .archive : .folder, source: source)
        let scanner = SourceScanner(followSymlinks: options.followSymlinks, excluded: [location.resolved],
                                    exclusions: options.exclusions)
        var preview = BuildPreview(source: source, output: output, form: archive ? "archive" : "folder")
        var grouping = PackGrouping(budget: options.rules.packSize)
        try scanner.scan(source) { (item, names) throws(AssetPackError) in
            guard item.kind == .file else { return preview.directories += 1 }
            (preview.files, preview.bytes) = (preview.files + 1, preview.bytes + item.size)
            guard !archive else { return }
            switch try BundlePlan.plan(item, names: names, rules: options.rules).action {
            case .copy: preview.copied += 1
            case .pack: preview.packed += 1
            case .gather:
                preview.gathered += 1
                if grouping.add(item) != nil { preview.packs += 1 }
            case .directory: break
            }
        }
        if grouping.finish() != nil { preview.packs += 1 }
        return preview
    }
}
