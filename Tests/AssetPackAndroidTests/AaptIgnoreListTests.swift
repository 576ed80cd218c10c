import AssetPack
import AssetPackPacker
import AssetPackZip
import Foundation
import Testing
import TestSupport

/// ``AaptIgnoreList`` leaves out exactly what Android 10's aapt leaves out, for its default list and for
/// the one `--print-android-settings` prints when a bundle has names the default would drop.
@Suite(APKBuilder.aapt.needed, APKBuilder.zipalign.needed)
struct AaptIgnoreListTests {
    init() throws {
        try ExternalTool.require(APKBuilder.aapt, APKBuilder.zipalign)
    }

    /// Files (and the folders above them) whose names aapt's default list matches, or almost matches.
    static let files = [
        "ok.txt", ".hidden", "_file.txt", "x.txt~", "A.SCC", "b.scc.txt", "Thumbs.DB", "picasa.ini", "cvs",
        "_dir/in.txt", "dir_/in.txt", ".dotdir/in.txt", "CVS/in.txt", "keep/.git", "keep/in.txt",
        "assetpack-meta/manifest.json", "assetpack-meta/identity",
    ]

    @Test(arguments: [AaptIgnoreList.defaultPattern, "!.svn:!.git:!.ds_store:!*.scc:!CVS:!thumbs.db:!picasa.ini:!*~"])
    func theListDropsWhatAaptDrops(_ pattern: String) throws {
        let scratch = try TemporaryDirectory("aapt-ignore")
        for file in Self.files { try scratch.write("assets/" + file, text: file) }
        let options = APKBuilder.Options(noCompress: [], ignoreAssets: pattern == AaptIgnoreList.defaultPattern ? nil : pattern)
        try APKBuilder.build(assets: scratch.file("assets"), to: scratch.file("app.apk"), options: options)
        let packaged = Set(try ZipArchive(path: scratch.file("app.apk")).entries.map(\.name).filter { $0.hasPrefix("assets/") }
            .map { String($0.dropFirst("assets/".count)) })
        let list = AaptIgnoreList(pattern)
        let kept = Set(Self.files.filter { file in list.drops(in: [(file, false)]).isEmpty })
        #expect(kept == packaged, "aapt kept \(packaged.sorted()), the list keeps \(kept.sorted())")
        #expect(packaged.contains("assetpack-meta/manifest.json") && packaged.contains("assetpack-meta/identity"))
    }
}
