import Foundation

/// Render times counted in logarithmic bins, ten to a decade from 1 µs to 100 ms: callback times
/// span microseconds (an idle period) to milliseconds (a preempted one), and a chart of them is
/// readable only on a log axis. Written to `--json` so a chart can be drawn again from the file.
struct RenderTimeHistogram {
    static let binsPerDecade = 10
    static let lowestMicroseconds = 1.0
    static let decades = 5

    /// Lower edge of each bin in µs, and one more for the upper edge of the last.
    static let edgesMicroseconds: [Double] = (0...(binsPerDecade * decades)).map {
        lowestMicroseconds * pow(10, Double($0) / Double(binsPerDecade))
    }

    /// Periods per bin; times below 1 µs count in the first bin and above 100 ms in the last,
    /// so the counts add up to the periods timed.
    var counts: [Int]

    init(sortedNanoseconds: [UInt64]) {
        let edges = RenderTimeHistogram.edgesMicroseconds
        counts = Array(repeating: 0, count: edges.count - 1)
        for nanoseconds in sortedNanoseconds {
            let position = log10(max(Double(nanoseconds) / 1_000, RenderTimeHistogram.lowestMicroseconds) / RenderTimeHistogram.lowestMicroseconds)
            counts[min(counts.count - 1, Int(position * Double(RenderTimeHistogram.binsPerDecade)))] += 1
        }
    }

    init(counts: [Int]) { self.counts = counts }

    var json: [String: Any] { ["edges_us": RenderTimeHistogram.edgesMicroseconds, "counts": counts] }
}
