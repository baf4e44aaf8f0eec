import Foundation

/// The polyphony benchmark's chart: voices held in real time against the period, one line per
/// interpolation, from the ramp in the `--json` report. A point at the voice limit is a floor
/// (the load still held there), drawn hollow and labelled "≥".
enum PolyphonyChart {
    static func svg(_ report: [String: Any]) -> String? {
        guard let ramp = report["ramp"] as? [[String: Any]], !ramp.isEmpty else { return nil }
        let width = 820.0, height = 560.0
        let left = 90.0, right = width - 40, top = 130.0, bottom = height - 80
        var picture = SVGDocument(width: width, height: height)
        let loadLimit = Charts.double(report["ramp_load_limit"]) ?? 0.8
        picture.text("Voices one core renders in real time, by period (\(report["soundfont"] as? String ?? "?"), 48 kHz)",
                     x: 10, y: 26, size: 17, bold: true)
        let ramps = ((ramp.first?["cubic"] as? [String: Any])?["voices_every_ramp"] as? [Any])?.count ?? 1
        picture.text("the largest N held voices whose p99.9 block time stays within \(Int(loadLimit * 100)) % of the period", x: 10, y: 46,
                     size: 12, fill: ChartColour.reference)
        picture.text("one thread, paced a block a period · median of \(ramps) ramp\(ramps == 1 ? "" : "s") · "
                     + "\(report["date"] as? String ?? "") · \(report["cpus"] as? Int ?? 0) CPUs", x: 10, y: 62, size: 12, fill: ChartColour.reference)
        let series: [(key: String, name: String, colour: String)] = [("cubic", "cubic (4-point) interpolation", ChartColour.primary),
                                                                     ("linear", "linear interpolation", ChartColour.secondary)]
        let periods = ramp.compactMap { $0["period_frames"] as? Int }
        let limit = ramp.compactMap { ($0["cubic"] as? [String: Any])?["voice_limit"] as? Int }.first ?? 4_096
        let most = ramp.flatMap { row in series.compactMap { (row[$0.key] as? [String: Any])?["voices"] as? Int } }.max() ?? 0
        let top_ = Double(max(limit, most)) * 1.12
        let step = top_ > 4_000 ? 1_000.0 : top_ > 1_500 ? 500 : 200
        let voices = ChartScale(lower: 0, upper: (top_ / step).rounded(.up) * step, logarithmic: false, from: bottom, to: top)
        let lowest = Double(periods.min() ?? 16), highest = Double(periods.max() ?? 1_024)
        let period = ChartScale(lower: lowest / 1.3, upper: highest * 1.3, logarithmic: true, from: left, to: right)

        for tick in stride(from: 0, through: voices.upper, by: step) {
            picture.line(left, voices.position(tick), right, voices.position(tick), stroke: ChartColour.grid)
            picture.text(Int(tick).formatted(), x: left - 8, y: voices.position(tick) + 4, size: 11, anchor: .end)
        }
        for frames in periods {
            let at = period.position(Double(frames))
            picture.line(at, bottom, at, bottom + 5, stroke: ChartColour.axis)
            picture.text("\(frames)", x: at, y: bottom + 19, size: 12, anchor: .middle)
            picture.text(String(format: "%.2f ms", Double(frames) / 48), x: at, y: bottom + 34, size: 10, anchor: .middle, fill: ChartColour.reference)
        }
        picture.line(left, bottom, right, bottom, stroke: ChartColour.axis)
        picture.line(left, top, left, bottom, stroke: ChartColour.axis)
        picture.text("period (frames at 48 kHz, and its duration)", x: (left + right) / 2, y: bottom + 56, size: 12, anchor: .middle)
        picture.text("voices in real time", x: 24, y: (top + bottom) / 2, size: 12, anchor: .middle, rotated: true)
        let limitAt = voices.position(Double(limit))
        picture.line(left, limitAt, right, limitAt, stroke: ChartColour.deadline, width: 1.5, dash: "6,4")
        picture.text("voice limit \(limit.formatted()): every distinct held note sounding (pool of at most 4,096)", x: left + 6, y: limitAt + 14,
                     size: 11, fill: ChartColour.deadline)

        for (index, line) in series.enumerated() {
            let points = ramp.compactMap { row -> (Double, Double, Bool)? in
                guard let frames = row["period_frames"] as? Int, let figure = row[line.key] as? [String: Any],
                      let count = figure["voices"] as? Int else { return nil }
                return (period.position(Double(frames)), voices.position(Double(count)), figure["reached_voice_limit"] as? Bool == true)
            }
            picture.polyline(points.map { ($0.0, $0.1) }, stroke: line.colour, width: 2.5)
            for (pointIndex, point) in points.enumerated() {
                picture.circle(x: point.0, y: point.1, radius: 5, fill: line.colour)
                if point.2 { picture.circle(x: point.0, y: point.1, radius: 2.5, fill: "#ffffff") }
                let voicesOf = { (key: String) in (ramp[pointIndex][key] as? [String: Any])?["voices"] as? Int ?? 0 }
                let count = voicesOf(line.key)
                let other = voicesOf(series[1 - index].key)
                // The higher line's figure above its point, the lower's below, so the two never overlap.
                let above = count > other || (count == other && index == 0)
                picture.text((point.2 ? "≥ " : "") + count.formatted(), x: point.0, y: point.1 + (above ? -10 : 18), size: 10,
                             anchor: .middle, fill: line.colour)
            }
            let legendX = 10 + Double(index) * 260
            picture.line(legendX, 94, legendX + 28, 94, stroke: line.colour, width: 2.5)
            picture.circle(x: legendX + 14, y: 94, radius: 4, fill: line.colour)
            picture.text(line.name, x: legendX + 34, y: 98, size: 12)
        }
        picture.line(540, 94, 568, 94, stroke: ChartColour.deadline, width: 1.5, dash: "6,4")
        picture.text("voice limit (hollow point: ≥)", x: 574, y: 98, size: 12)
        return picture.svg
    }
}
