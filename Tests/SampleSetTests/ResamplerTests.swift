import Foundation
import SampleSet
import TestSupport
import XCTest

/// The load-time resampler against its specification: exact length, flat passband, deep stopband,
/// and no change at all when the rates already match.
final class ResamplerTests: XCTestCase {
    /// Rate pairs the loader meets: CD and DAT material to a 48 kHz engine, half-rate samples,
    /// and high-rate recordings coming down.
    let conversions: [(from: Double, to: Double)] = [(44_100, 48_000), (48_000, 44_100), (22_050, 48_000),
                                                     (96_000, 48_000), (32_000, 48_000)]

    func testEqualRatesReturnTheInputUnchanged() {
        let input = sine(frequency: 1_000, sampleRate: 48_000, count: 1_000)
        XCTAssertEqual(Resampler.resample(input, from: 48_000, to: 48_000), input)
        XCTAssertEqual(Resampler.resample([], from: 44_100, to: 48_000), [])
    }

    func testLengthScalesByTheRateRatio() {
        for (from, to) in conversions {
            for count in [1, 2, 147, 1_000, 10_007] {
                let output = Resampler.resample([Float](repeating: 0.1, count: count), from: from, to: to)
                XCTAssertEqual(Double(output.count), Double(count) * to / from, accuracy: 1, "\(count) frames \(from) → \(to)")
            }
        }
    }

    func testPassbandIsFlatWithinATenthOfADecibel() {
        for (from, to) in conversions {
            let nyquist = min(from, to) / 2
            for fraction in [0.001, 0.01, 0.1, 0.3, 0.5, 0.7, 0.8, 0.85, 0.9] {
                let frequency = fraction * nyquist
                let input = sine(frequency: frequency, sampleRate: from, count: Int(from / 8))
                let output = Resampler.resample(input, from: from, to: to)
                // Away from the ends, where the kernel runs off the signal.
                let measured = amplitude(of: output[1_000 ..< output.count - 1_000], frequency: frequency, sampleRate: to)
                let gain = decibels(measured / 0.5)
                XCTAssertLessThan(abs(gain), 0.1, "\(frequency) Hz, \(from) → \(to): \(gain) dB")
            }
        }
    }

    func testTonesAboveTheNewNyquistAreRejectedBy80Decibels() {
        for (from, to) in conversions where to < from {
            let nyquist = to / 2
            for fraction in [1.0, 1.005, 1.02, 1.05, 1.2, 1.5, 1.95] where fraction * nyquist < from / 2 {
                let frequency = fraction * nyquist
                let input = sine(frequency: frequency, sampleRate: from, count: Int(from / 8))
                let output = Resampler.resample(input, from: from, to: to)
                // Whatever comes out is an alias at some other frequency, so measure all of it.
                let level = decibels(Double(SignalAnalysis.rms(output[1_000 ..< output.count - 1_000])) / (0.5 / 2.0.squareRoot()))
                XCTAssertLessThan(level, -80, "\(frequency) Hz, \(from) → \(to)")
            }
        }
    }

    func testUpsamplingAddsNoImagesOfTheOldSpectrum() {
        for (from, to) in conversions where to > from {
            let nyquist = from / 2
            for fraction in [0.3, 0.6, 0.9] {
                // Zero-stuffing without filtering would leave an image at from - f, well inside the
                // new band: after removing the tone itself, nothing may be left.
                let frequency = fraction * nyquist
                let output = Resampler.resample(sine(frequency: frequency, sampleRate: from, count: Int(from / 8)), from: from, to: to)
                let middle = 1_000 ..< output.count - 1_000
                let fitted = fit(output[middle], frequency: frequency, sampleRate: to)
                let residual = middle.map { output[$0] - fitted[$0 - middle.lowerBound] }
                let level = decibels(Double(SignalAnalysis.rms(residual[...])) / (0.5 / 2.0.squareRoot()))
                XCTAssertLessThan(level, -80, "\(frequency) Hz, \(from) → \(to)")
            }
        }
    }

    func testUpsampledToneKeepsItsPitchAndPhase() {
        let input = sine(frequency: 440, sampleRate: 44_100, count: 44_100)
        let output = Resampler.resample(input, from: 44_100, to: 48_000)
        let expected = sine(frequency: 440, sampleRate: 48_000, count: output.count)
        let error = (500 ..< output.count - 500).map { abs(output[$0] - expected[$0]) }.max()!
        XCTAssertLessThan(error, 1e-4, "frame n of the output is the input at time n × 44100/48000")
    }
}
