import Foundation

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

    /// The frequency within `range` where `samples` hold the most power, scanned every `step` Hz
    /// through a Hann window (Goertzel). Unlike counting zero crossings it barely moves when a
    /// few cycles of a tone are missing or doubled (a host that stole a client's time): those
    /// spread some power around the peak but do not shift it.
    public static func strongestFrequency(of samples: ArraySlice<Float>, sampleRate: Double,
                                          in range: ClosedRange<Double>, step: Double = 0.25) -> Double {
        let count = samples.count
        let windowed = samples.enumerated().map { offset, value in
            Double(value) * (0.5 - 0.5 * cos(2 * Double.pi * Double(offset) / Double(max(1, count - 1))))
        }
        var best = (frequency: range.lowerBound, power: -1.0)
        for frequency in stride(from: range.lowerBound, through: range.upperBound, by: step) {
            let coefficient = 2 * cos(2 * Double.pi * frequency / sampleRate)
            var previous = 0.0, beforePrevious = 0.0
            for value in windowed {
                let current = value + coefficient * previous - beforePrevious
                beforePrevious = previous
                previous = current
            }
            let power = previous * previous + beforePrevious * beforePrevious - coefficient * previous * beforePrevious
            if power > best.power { best = (frequency, power) }
        }
        return best.frequency
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
