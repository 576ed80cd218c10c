// zipfoundation-peer: the operations the benchmark times, done the way an app using ZIPFoundation would.
//
//   zipfoundation-peer unzip ARCHIVE DEST   FileManager.unzipItem (CRC-32 checked)
//   zipfoundation-peer zip SRC ARCHIVE      FileManager.zipItem, deflate, SRC's folder name kept as the prefix
import Foundation
import ZIPFoundation

/// Prints one line on stderr and exits with `status`.
func fail(_ message: String, status: Int32 = 1) -> Never {
    FileHandle.standardError.write(Data("zipfoundation-peer: \(message)\n".utf8))
    exit(status)
}

let usage = "usage: zipfoundation-peer unzip ARCHIVE DEST | zip SRC ARCHIVE"
let arguments = CommandLine.arguments.dropFirst()
guard arguments.count == 3, let verb = arguments.first else { fail(usage, status: 2) }
let first = URL(fileURLWithPath: arguments[arguments.startIndex + 1])
let second = URL(fileURLWithPath: arguments[arguments.startIndex + 2])
let files = FileManager.default

do {
    switch verb {
    case "unzip":
        try files.createDirectory(at: second, withIntermediateDirectories: true)
        try files.unzipItem(at: first, to: second)
    case "zip":
        try files.zipItem(at: first, to: second, shouldKeepParent: true, compressionMethod: .deflate)
    default:
        fail(usage, status: 2)
    }
} catch {
    fail("\(verb) \(first.path): \(error)")
}
