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
    @discardableResult
    static func write(fromJSON data: Data, jsonPath: String, to svgPath: String? = nil) -> String? {
        guard let report = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            BenchArguments.fail("\(jsonPath): not a staccato-bench JSON report", status: 1)
        }
        guard let svg = svg(for: report) else { return nil }
        let destination = svgPath ?? path(besideJSON: jsonPath)
        do {
            try Data(svg.utf8).write(to: URL(fileURLWithPath: destination))
        } catch {
            BenchArguments.fail("cannot write \(destination): \(error.localizedDescription)", status: 1)
        }
        return destination
    }

    /// `staccato-bench chart FILE.json [--svg OUT.svg]`.
    static func redraw(json path: String, to svgPath: String?) {
        BenchArguments.requireFile(path)
        guard let data = FileManager.default.contents(atPath: path) else { BenchArguments.fail("cannot read \(path)", status: 1) }
        guard let written = write(fromJSON: data, jsonPath: path, to: svgPath) else {
            BenchArguments.fail("\(path): only latency and polyphony reports have a chart", status: 1)
        }
        print("chart: \(written)")
    }

    static func double(_ value: Any?) -> Double? { (value as? NSNumber)?.doubleValue ?? (value as? Double) }

    static func number(_ value: Any?) -> String {
        guard let value = double(value) else { return "?" }
        return value >= 100 ? String(format: "%.0f", value) : String(format: "%.1f", value)
    }
}
