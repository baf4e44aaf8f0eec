#if !FUZZING
import Foundation

/// Without libFuzzer (a normal build), the same targets run over files: the committed corpora and
/// every crash a fuzz run found, so a regression fails `make test` without the fuzzer.
///
///     staccato-fuzz TARGET PATH...   (a path may be a folder: every file in it)
@main
enum RegressionRunner {
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        guard let name = arguments.first, let target = FuzzTarget(rawValue: name), arguments.count > 1 else {
            FileHandle.standardError.write("usage: staccato-fuzz \(FuzzTarget.allCases.map(\.rawValue).joined(separator: "|")) PATH...\n".data(using: .utf8)!)
            exit(2)
        }
        var count = 0
        for path in arguments.dropFirst() {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
                FileHandle.standardError.write("staccato-fuzz: '\(path)': no such file or folder\n".data(using: .utf8)!)
                exit(1)
            }
            let files = isFolder.boolValue
                ? ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted().map { path + "/" + $0 }
                : [path]
            for file in files {
                guard let data = FileManager.default.contents(atPath: file) else { continue }
                data.withUnsafeBytes { target.run($0.bindMemory(to: UInt8.self)) }
                count += 1
            }
        }
        print("staccato-fuzz \(name): \(count) inputs, no crash")
    }
}
#endif
