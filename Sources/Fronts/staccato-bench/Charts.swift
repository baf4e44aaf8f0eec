import CommandLineSpec
import Foundation

/// The SVG chart of a benchmark report, for the benchmarks that have one: written beside the
/// `--json` file by the benchmark itself, or drawn again from a saved file by `chart`.
enum Charts {
    static func svg(for report: [String: Any]) -> String? {
        switch report["benchmark"] as? String {
        case "latency": LatencyChart.svg(report)
        case "polyphony": PolyphonyChart.svg(report)
        default: nil
        }
    }

    /// `x.json` → `x.svg`.
    static func path(besideJSON path: String) -> String {
        (path.hasSuffix(".json") ? String(path.dropLast(5)) : path) + ".svg"
    }

    /// Draws the chart of the report in `json` (as written by `--json`) and returns where it went,
    /// or nil when this benchmark has no chart.
    /// - Throws: `CommandFailure` when `json` is no report or the chart cannot be written.
    @discardableResult
    static func write(fromJSON data: Data, jsonPath: String, to svgPath: String? = nil) throws -> String? {
        guard let report = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            throw CommandFailure("\(jsonPath): not a staccato-bench JSON report")
        }
        guard let svg = svg(for: report) else { return nil }
        let destination = svgPath ?? path(besideJSON: jsonPath)
        do {
            try Data(svg.utf8).write(to: URL(fileURLWithPath: destination))
        } catch {
            throw CommandFailure("cannot write \(destination): \(error.localizedDescription)")
        }
        return destination
    }

    /// `staccato-bench chart FILE.json [--svg OUT.svg]`; `path` is known to be there.
    static func redraw(json path: String, to svgPath: String?) throws {
        guard let data = FileManager.default.contents(atPath: path) else { throw CommandFailure("cannot read \(path)") }
        guard let written = try write(fromJSON: data, jsonPath: path, to: svgPath) else {
            throw CommandFailure("\(path): only latency and polyphony reports have a chart")
        }
        print("chart: \(written)")
    }

    static func double(_ value: Any?) -> Double? { (value as? NSNumber)?.doubleValue ?? (value as? Double) }

    static func number(_ value: Any?) -> String {
        guard let value = double(value) else { return "?" }
        return value >= 100 ? String(format: "%.0f", value) : String(format: "%.1f", value)
    }
}
