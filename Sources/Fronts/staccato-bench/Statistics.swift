/// Every figure is a median of runs: one run disturbed by other work on the machine cannot move it.
extension Array where Element == Double {
    /// The middle run (the upper one of two for an even count).
    var median: Double { sorted()[count / 2] }

    /// Median, spread and every run, as written to `--json` files.
    var summary: [String: Any] { ["median": median, "min": self.min()!, "max": self.max()!, "runs": self] }
}

extension Array {
    /// The run whose `key` is the median, so the figures reported beside it come from the same run.
    func median(by key: (Element) -> Double) -> Element { sorted { key($0) < key($1) }[count / 2] }
}

extension Array where Element: BinaryInteger {
    /// The nearest-rank `quantile` (0...1) of the values, which must be sorted ascending.
    func sortedQuantile(_ quantile: Double) -> Element {
        let rank = Int((quantile * Double(count)).rounded(.up))
        return self[Swift.min(count - 1, Swift.max(0, rank - 1))]
    }
}
