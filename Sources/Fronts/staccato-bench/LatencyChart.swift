import Foundation

/// The latency benchmark's chart: one histogram of render-callback times per setting (period ×
/// count), on a log time axis with the deadline and the p99.9 marked, drawn from the `--json` report.
enum LatencyChart {
    /// One column of panels per period count; a single setting gets the whole width.
    static func panelWidth(columns: Int) -> Double { columns == 1 ? 1_000 : 540 }
    static let panelHeight = 200.0
    static let plotLeft = 62.0
    static let plotRight = 20.0
    static let plotTop = 46.0
    static let plotBottom = 40.0
    static let header = 96.0

    static func svg(_ report: [String: Any]) -> String {
        let settings = report["settings"] as? [[String: Any]] ?? []
        let counts = Array(Set(settings.compactMap { $0["period_count"] as? Int })).sorted()
        let periods = Array(Set(settings.compactMap { $0["period_frames"] as? Int })).sorted()
        let columns = max(1, counts.count)
        let width = panelWidth(columns: columns)
        var picture = SVGDocument(width: Double(columns) * width + 20, height: header + Double(max(1, periods.count)) * panelHeight + 10)
        let duplex = report["duplex"] as? Bool == true
        picture.text("Render time per period · \(report["device"] as? String ?? "?") \(duplex ? "duplex + mic chain" : "playback") · "
                     + "\(report["voices"] as? Int ?? 0) voices · \(Charts.number(report["seconds_per_setting"])) s a setting",
                     x: 10, y: 24, size: 16, bold: true)
        picture.text("\(report["date"] as? String ?? "") · \(report["cpus"] as? Int ?? 0) CPUs · \(report["sample_rate"] as? Int ?? 0) Hz · "
                     + "render time = renderer.render per device period, wall clock on the device thread",
                     x: 10, y: 44, size: 12, fill: ChartColour.reference)
        legend(&picture, y: 70)
        for setting in settings {
            guard let period = setting["period_frames"] as? Int, let count = setting["period_count"] as? Int,
                  let row = periods.firstIndex(of: period), let column = counts.firstIndex(of: count) else { continue }
            panel(&picture, setting, x: 10 + Double(column) * width, y: header + Double(row) * panelHeight, width: width)
        }
        return picture.svg
    }

    static func legend(_ picture: inout SVGDocument, y: Double) {
        picture.rectangle(x: 10, y: y - 10, width: 14, height: 10, fill: ChartColour.primary)
        picture.text("periods rendered in that time (log scale)", x: 30, y: y, size: 12)
        picture.line(290, y - 5, 316, y - 5, stroke: ChartColour.deadline, width: 2.5)
        picture.text("deadline (one period)", x: 322, y: y, size: 12)
        picture.line(470, y - 5, 496, y - 5, stroke: ChartColour.limit, width: 2, dash: "5,3")
        picture.text("p99.9", x: 502, y: y, size: 12)
        picture.line(550, y - 5, 576, y - 5, stroke: ChartColour.axis, width: 1.5, dash: "2,2")
        picture.text("p50", x: 582, y: y, size: 12)
    }

    static func panel(_ picture: inout SVGDocument, _ setting: [String: Any], x: Double, y: Double, width panelWidth: Double) {
        let requested = "\(setting["period_frames"] as? Int ?? 0) × \(setting["period_count"] as? Int ?? 0)"
        guard let histogram = setting["render_histogram"] as? [String: Any],
              let edges = (histogram["edges_us"] as? [Any])?.compactMap(Charts.double), let bins = histogram["counts"] as? [Int],
              edges.count == bins.count + 1, let render = setting["render_us"] as? [String: Any] else {
            picture.text("\(requested): \(setting["error"] as? String ?? "no histogram in this report")", x: x, y: y + 20, size: 13, bold: true)
            return
        }
        let deadline = Charts.double(setting["deadline_us"]) ?? 0
        let granted = setting["granted"] as? [String: Any]
        let xruns = setting["xruns"] as? Int ?? 0
        picture.text("\(requested) (granted \(granted?["period_frames"] as? Int ?? 0) × \(setting["period_count"] as? Int ?? 0), "
                     + "\(String(format: "%.2f", deadline / 1000)) ms a period) · \(xruns) xrun\(xruns == 1 ? "" : "s")",
                     x: x, y: y + 16, size: 13, fill: xruns > 0 ? ChartColour.deadline : "#222222", bold: true)
        picture.text("render p50 \(Charts.number(render["p50"])) · p99.9 \(Charts.number(render["p99_9"])) · max \(Charts.number(render["max"])) µs "
                     + "over \((setting["periods_timed"] as? Int ?? 0).formatted()) periods", x: x, y: y + 32, size: 11.5)
        let left = x + plotLeft, right = x + panelWidth - plotRight, top = y + plotTop, bottom = y + panelHeight - plotBottom
        let time = ChartScale(lower: edges.first!, upper: edges.last!, logarithmic: true, from: left, to: right)
        let most = Double(bins.max() ?? 1)
        let decades = max(1, Int(log10(max(most, 1)).rounded(.up)))
        let periods = ChartScale(lower: 0.5, upper: pow(10, Double(decades)), logarithmic: true, from: bottom, to: top)
        for decade in 0...decades {
            let level = periods.position(pow(10, Double(decade)))
            picture.line(left, level, right, level, stroke: ChartColour.grid)
            picture.text(decade < 4 ? "\(Int(pow(10, Double(decade))))" : "1e\(decade)", x: left - 6, y: level + 4, size: 10, anchor: .end)
        }
        for (index, count) in bins.enumerated() where count > 0 {
            let from = time.position(edges[index]), to = time.position(edges[index + 1])
            let height = periods.position(Double(count))
            picture.rectangle(x: from + 0.5, y: height, width: to - from - 1, height: bottom - height, fill: ChartColour.primary)
        }
        for (value, label) in [(1.0, "1 µs"), (10, "10 µs"), (100, "100 µs"), (1_000, "1 ms"), (10_000, "10 ms"), (100_000, "100 ms")] {
            let at = time.position(value)
            picture.line(at, bottom, at, bottom + 4, stroke: ChartColour.axis)
            picture.text(label, x: at, y: bottom + 16, size: 10, anchor: .middle)
        }
        picture.line(left, bottom, right, bottom, stroke: ChartColour.axis)
        picture.line(left, top, left, bottom, stroke: ChartColour.axis)
        picture.text("render time per period", x: (left + right) / 2, y: bottom + 31, size: 11, anchor: .middle, fill: ChartColour.reference)
        picture.text("periods", x: x + 16, y: (top + bottom) / 2, size: 11, anchor: .middle, fill: ChartColour.reference, rotated: true)
        if let p50 = Charts.double(render["p50"]) {
            picture.line(time.position(p50), top, time.position(p50), bottom, stroke: ChartColour.axis, width: 1.5, dash: "2,2")
        }
        if let p999 = Charts.double(render["p99_9"]) {
            picture.line(time.position(p999), top, time.position(p999), bottom, stroke: ChartColour.limit, width: 2, dash: "5,3")
        }
        let deadlineAt = time.position(deadline)
        picture.line(deadlineAt, top - 6, deadlineAt, bottom, stroke: ChartColour.deadline, width: 2.5)
        let labelLeft = deadlineAt > right - 110
        picture.text("deadline \(String(format: "%.0f", deadline)) µs", x: deadlineAt + (labelLeft ? -4 : 4), y: top + 4, size: 11,
                     anchor: labelLeft ? .end : .start, fill: ChartColour.deadline)
    }
}
