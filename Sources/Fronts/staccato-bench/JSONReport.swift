import CommandLineSpec
import Foundation

/// `--json PATH`: a benchmark's figures as one JSON object, for scripts and for `bench/results/`.
enum JSONReport {
    /// Returns the bytes written.
    /// - Throws: `CommandFailure` when the file cannot be written.
    @discardableResult
    static func write(_ figures: [String: Any], benchmark: String, to path: String) throws -> Data {
        var object = figures
        object["benchmark"] = benchmark
        object["date"] = ISO8601DateFormatter().string(from: Date())
        object["cpus"] = ProcessInfo.processInfo.activeProcessorCount
        do {
            let data = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
            try (data + Data("\n".utf8)).write(to: URL(fileURLWithPath: path))
            return data
        } catch {
            throw CommandFailure("cannot write \(path): \(error.localizedDescription)")
        }
    }
}
