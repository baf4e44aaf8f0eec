import AudioFile
import Foundation
import TestSupport

/// Sample sets written by the tests into a `TemporaryFolder`.
extension TemporaryFolder {
    /// Writes a sine of `frequency` Hz; a stereo file gets `amplitude` on the left and
    /// `rightScale × amplitude` on the right.
    func writeSine(_ name: String, frequency: Double, sampleRate: Int, seconds: Double = 1, amplitude: Float = 0.5,
                   channelCount: Int = 1, rightScale: Float = 1) throws {
        let tone = sine(frequency: frequency, sampleRate: Double(sampleRate), count: Int(seconds * Double(sampleRate)), amplitude: amplitude)
        let interleaved = channelCount == 1 ? tone : tone.flatMap { [$0, $0 * rightScale] }
        let writer = try AudioFileWriter(path: file(name), sampleRate: sampleRate, channelCount: channelCount)
        try writer.write(interleaved)
        try writer.close()
    }
}

func sine(frequency: Double, sampleRate: Double, count: Int, amplitude: Float = 0.5) -> [Float] {
    (0..<count).map { amplitude * Float(sin(2 * Double.pi * frequency * Double($0) / sampleRate)) }
}

/// The least-squares fit of a sine and a cosine at `frequency`: sine and cosine weights.
private func fitWeights(_ samples: ArraySlice<Float>, frequency: Double, sampleRate: Double) -> (sine: Double, cosine: Double) {
    var ss = 0.0, cc = 0.0, sc = 0.0, xs = 0.0, xc = 0.0
    for (offset, value) in samples.enumerated() {
        let phase = 2 * Double.pi * frequency * Double(offset) / sampleRate
        let s = sin(phase), c = cos(phase), x = Double(value)
        ss += s * s; cc += c * c; sc += s * c; xs += x * s; xc += x * c
    }
    let determinant = ss * cc - sc * sc
    return ((xs * cc - xc * sc) / determinant, (xc * ss - xs * sc) / determinant)
}

/// The amplitude of the `frequency` component: exact for a pure tone whatever the window length,
/// unlike RMS over a non-whole number of periods.
func amplitude(of samples: ArraySlice<Float>, frequency: Double, sampleRate: Double) -> Double {
    let (a, b) = fitWeights(samples, frequency: frequency, sampleRate: sampleRate)
    return (a * a + b * b).squareRoot()
}

/// The `frequency` component of `samples` alone, to subtract and see what else is there.
func fit(_ samples: ArraySlice<Float>, frequency: Double, sampleRate: Double) -> [Float] {
    let (a, b) = fitWeights(samples, frequency: frequency, sampleRate: sampleRate)
    return (0..<samples.count).map {
        let phase = 2 * Double.pi * frequency * Double($0) / sampleRate
        return Float(a * sin(phase) + b * cos(phase))
    }
}

func decibels(_ ratio: Double) -> Double { 20 * log10(ratio) }
