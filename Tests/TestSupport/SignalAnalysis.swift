/// Measurements on rendered or recorded signals, shared by the test targets.
public enum SignalAnalysis {
    /// The frequency of a steady periodic signal, from the first and last rising zero crossings
    /// (linearly interpolated between samples): precise to well under a cent for a clean tone.
    public static func frequency(of samples: ArraySlice<Float>, sampleRate: Double) -> Double? {
        var first: Double?
        var last = 0.0
        var crossings = 0
        var index = samples.startIndex
        while index + 1 < samples.endIndex {
            let a = samples[index], b = samples[index + 1]
            if a < 0, b >= 0 {
                let position = Double(index - samples.startIndex) + Double(-a / (b - a))
                if first == nil { first = position }
                last = position
                crossings += 1
            }
            index += 1
        }
        guard let first, crossings >= 2 else { return nil }
        return Double(crossings - 1) * sampleRate / (last - first)
    }

    /// The largest difference between neighbouring samples: a click shows up as a step far above
    /// what the signal's own slope explains.
    public static func largestStep(_ samples: ArraySlice<Float>) -> Float {
        zip(samples, samples.dropFirst()).reduce(0) { max($0, abs($1.1 - $1.0)) }
    }

    /// The largest absolute sample.
    public static func largestAbs(_ samples: ArraySlice<Float>) -> Float {
        samples.reduce(0) { max($0, abs($1)) }
    }

    /// Root mean square level.
    public static func rms(_ samples: ArraySlice<Float>) -> Float {
        guard !samples.isEmpty else { return 0 }
        return (samples.reduce(0) { $0 + $1 * $1 } / Float(samples.count)).squareRoot()
    }

    /// Every `channelCount`-th sample starting at `channel`.
    public static func channel(_ channel: Int, of interleaved: [Float], channelCount: Int) -> [Float] {
        stride(from: channel, to: interleaved.count, by: channelCount).map { interleaved[$0] }
    }
}
