import Foundation

/// `--json PATH`: a benchmark's figures as one JSON object, for scripts and for `bench/results/`.
enum JSONReport {
    /// Returns the bytes written.
    @discardableResult
    static func write(_ figures: [String: Any], benchmark: String, to path: String) -> Data {
        var object = figures
        object["benchmark"] = benchmark
        object["date"] = ISO8601DateFormatter().string(from: Date())
        object["cpus"] = ProcessInfo.processInfo.activeProcessorCount
        do {
            let data = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
            try (data + Data("\n".utf8)).write(to: URL(fileURLWithPath: path))
            return data
        } catch {
            BenchArguments.fail("cannot write \(path): \(error.localizedDescription)", status: 1)
        }
    }
}
