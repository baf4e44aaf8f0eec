#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Measures for comparing two renders of the same music: levels, loudness envelopes, the lag
/// between them, and how alike their log-mel spectrograms are.
///
/// - Thread: any. For every member; they allocate: control-thread analysis only.
public enum RenderComparison {
    /// The lowest level reported: digital silence has no finite dB value, and JSON has no -inf.
    public static let silenceDecibels = -200.0

    /// The average of the channels of `interleaved`.
    /// - Thread: any.
    public static func mono(_ interleaved: [Float], channelCount: Int) -> [Float] {
        guard channelCount > 1 else { return interleaved }
        let scale = 1 / Float(channelCount)
        return (0 ..< interleaved.count / channelCount).map { frame in
            var sum: Float = 0
            for channel in 0 ..< channelCount { sum += interleaved[frame * channelCount + channel] }
            return sum * scale
        }
    }

    /// RMS over every sample (all channels), in dB relative to full scale (a full-scale square
    /// wave is 0 dBFS), never below `silenceDecibels`.
    /// - Thread: any.
    public static func rmsDecibels(_ samples: [Float]) -> Double {
        guard !samples.isEmpty else { return silenceDecibels }
        var sum = 0.0
        for sample in samples { sum += Double(sample) * Double(sample) }
        let meanSquare = sum / Double(samples.count)
        return meanSquare > 0 ? max(silenceDecibels, 10 * log10(meanSquare)) : silenceDecibels
    }

    /// RMS of each whole run of `frameLength` samples of a mono signal (a partial last run is left out).
    /// - Thread: any.
    public static func rmsEnvelope(_ mono: [Float], frameLength: Int) -> [Double] {
        stride(from: 0, to: mono.count - frameLength + 1, by: frameLength).map { start in
            var sum = 0.0
            for index in start ..< start + frameLength { sum += Double(mono[index]) * Double(mono[index]) }
            return (sum / Double(frameLength)).squareRoot()
        }
    }

    /// The Pearson correlation of the first min(a.count, b.count) values of each; `nil` when
    /// either is constant there (a correlation with no variance is undefined) or empty.
    /// - Thread: any.
    public static func correlation(_ a: [Double], _ b: [Double]) -> Double? {
        let count = min(a.count, b.count)
        guard count > 0 else { return nil }
        // Constancy is tested on the values themselves: the rounding in a mean of equal values
        // leaves a variance of 1e-20, not 0.
        guard a[0 ..< count].contains(where: { $0 != a[0] }), b[0 ..< count].contains(where: { $0 != b[0] }) else { return nil }
        var sumA = 0.0, sumB = 0.0
        for index in 0 ..< count { sumA += a[index]; sumB += b[index] }
        let meanA = sumA / Double(count), meanB = sumB / Double(count)
        var covariance = 0.0, varianceA = 0.0, varianceB = 0.0
        for index in 0 ..< count {
            let x = a[index] - meanA, y = b[index] - meanB
            covariance += x * y
            varianceA += x * x
            varianceB += y * y
        }
        guard varianceA > 0, varianceB > 0 else { return nil }
        return covariance / (varianceA * varianceB).squareRoot()
    }

    /// Samples per envelope frame when aligning: 2.7 ms at 48 kHz, finer than a spectrogram hop.
    public static let alignmentFrameLength = 128
    /// The largest lag looked for, in seconds either way.
    public static let maximumLagSeconds = 1.0

    /// How many samples later `b` starts than `a` (negative: earlier), from the peak of the
    /// cross-correlation of their RMS envelopes within `maximumLagSeconds`; 0 when either is silent.
    /// - Thread: any.
    public static func lag(of b: [Float], behind a: [Float], sampleRate: Double) -> Int {
        let envelopeA = rmsEnvelope(a, frameLength: alignmentFrameLength)
        let envelopeB = rmsEnvelope(b, frameLength: alignmentFrameLength)
        let maximumLag = Int(maximumLagSeconds * sampleRate) / alignmentFrameLength
        var best = (lag: 0, score: -Double.infinity)
        for lag in -maximumLag ... maximumLag {
            // Envelope A from max(0, -lag), B from max(0, lag): compare what overlaps.
            let startA = max(0, -lag), startB = max(0, lag)
            let count = min(envelopeA.count - startA, envelopeB.count - startB)
            guard count > 0 else { continue }
            guard let score = correlation(Array(envelopeA[startA ..< startA + count]), Array(envelopeB[startB ..< startB + count])) else { continue }
            if score > best.score { best = (lag, score) }
        }
        return best.lag * alignmentFrameLength
    }

    /// What `compare` found.
    public struct Result: Sendable {
        /// Pearson correlation over every time-frequency cell of the two log-mel spectrograms,
        /// after alignment; `nil` when either render is silent (a constant spectrogram).
        public var logMelCorrelation: Double?
        /// Samples `b` was found to start later than `a` (and was shifted back by).
        public var lagFrames: Int
    }

    /// Aligns mono renders `a` and `b` by `lagFrames` when it is known, else by
    /// `lag(of:behind:sampleRate:)`, then correlates their log-mel spectrograms over the frames both
    /// have (a longer tail in one is not counted against it). Each spectrogram is floored relative to
    /// its own peak, so a pure gain difference changes nothing. A part of a piece rendered alone
    /// keeps the whole piece's lag: found on the part's own envelope, an even strum or a held pad
    /// can match best a beat away.
    /// - Thread: any.
    public static func compare(_ a: [Float], _ b: [Float], sampleRate: Double, lagFrames: Int? = nil,
                               settings: LogMelSpectrogram.Settings = LogMelSpectrogram.Settings()) -> Result {
        let lag = lagFrames ?? lag(of: b, behind: a, sampleRate: sampleRate)
        let alignedA = lag < 0 ? Array(a.dropFirst(-lag)) : a
        let alignedB = lag > 0 ? Array(b.dropFirst(lag)) : b
        let length = min(alignedA.count, alignedB.count)
        let spectrogramA = LogMelSpectrogram(Array(alignedA.prefix(length)), sampleRate: sampleRate, settings: settings)
        let spectrogramB = LogMelSpectrogram(Array(alignedB.prefix(length)), sampleRate: sampleRate, settings: settings)
        let correlation = correlation(spectrogramA.frames.flatMap { $0 }, spectrogramB.frames.flatMap { $0 })
        return Result(logMelCorrelation: correlation, lagFrames: lag)
    }
}
