import DSP
import Foundation
import TestSupport
import XCTest

/// The cookbook biquads against the cookbook formulas, computed here independently with libm.
final class BiquadTests: XCTestCase {
    let rate = 48_000.0

    func cookbookMagnitude(_ kind: BiquadCoefficients.Kind, frequency f0: Double, q: Double, at f: Double) -> Double {
        CookbookReference.magnitude(kind, frequency: f0, q: q, at: f, sampleRate: rate)
    }

    /// Gain of the running filter at `f`, by RMS of a steady sine (whole cycles, after settling).
    func measuredMagnitude(_ coefficients: BiquadCoefficients, at f: Double) -> Double {
        let frames = 48_000
        var samples = (0..<frames).map { Float(sin(2 * Double.pi * f * Double($0) / rate)) }
        var filter = Biquad(coefficients)
        samples.withUnsafeMutableBufferPointer { filter.process($0.baseAddress!, frameCount: frames) }
        // Measure over the last 0.5 s, rounded to whole cycles of f.
        let cycle = rate / f
        let length = Int((Double(24_000) / cycle).rounded(.down) * cycle)
        let tail = samples[(frames - length)...]
        let energy = tail.reduce(0.0) { $0 + Double($1) * Double($1) }
        return (energy / Double(tail.count)).squareRoot() * 2.0.squareRoot()
    }

    func testEveryKindWithinATenthOfADecibelOfTheCookbookAtTwentyFrequencies() {
        let probes = (0..<20).map { 30 * pow(2, Double($0) * 0.48) }  // 30 Hz … ~17 kHz, log-spaced
        let cases: [(BiquadCoefficients.Kind, Double, Double)] = [
            (.lowPass, 1_000, 0.7071), (.highPass, 300, 0.7071), (.bandPass, 2_000, 2), (.notch, 1_000, 4),
            (.allPass, 1_000, 0.7071), (.peaking(gain: 6), 1_000, 1), (.peaking(gain: -9), 3_000, 2),
            (.lowShelf(gain: 12), 150, 0.7071), (.lowShelf(gain: -12), 150, 0.7071),
            (.highShelf(gain: 12), 6_000, 0.7071), (.highShelf(gain: -6), 6_000, 0.7071),
        ]
        for (kind, frequency, q) in cases {
            let coefficients = BiquadCoefficients(kind, frequency: frequency, q: q, sampleRate: rate)
            for probe in probes {
                let expected = 20 * log10(cookbookMagnitude(kind, frequency: frequency, q: q, at: probe))
                guard expected > -60 else { continue }  // deep in a stopband the sine is below the float noise
                let measured = 20 * log10(measuredMagnitude(coefficients, at: probe))
                XCTAssertEqual(measured, expected, accuracy: 0.1, "\(kind) \(frequency) Hz, probe \(Int(probe)) Hz")
                XCTAssertEqual(20 * log10(coefficients.magnitude(at: probe, sampleRate: rate)), expected, accuracy: 0.01)
            }
        }
    }

    func testCoefficientChangesRampWithoutAStepOrAReset() {
        // A 100 Hz sine through a low shelf whose gain jumps from 0 to +12 dB between blocks.
        let block = 64
        var filter = Biquad(BiquadCoefficients(.lowShelf(gain: 0), frequency: 150, q: 0.7071, sampleRate: rate))
        var output: [Float] = []
        var phase = 0.0
        for index in 0..<200 {
            if index == 100 { filter.setTarget(BiquadCoefficients(.lowShelf(gain: 12), frequency: 150, q: 0.7071, sampleRate: rate)) }
            var samples = (0..<block).map { _ -> Float in
                defer { phase += 100 / rate }
                return Float(sin(2 * Double.pi * phase)) * 0.2
            }
            samples.withUnsafeMutableBufferPointer { filter.process($0.baseAddress!, frameCount: block) }
            output += samples
        }
        // The sine's own largest step at the louder level bounds every step, the change included.
        let ownStep = Float(2 * Double.pi * 100 / rate) * 0.2 * Float(pow(10, 12.0 / 20))
        var largest: Float = 0
        for index in 1..<output.count { largest = max(largest, abs(output[index] - output[index - 1])) }
        XCTAssertLessThanOrEqual(largest, ownStep * 1.05)
        let before = output[4_000..<6_000].map { abs($0) }.max()!
        let after = output[10_000..<12_000].map { abs($0) }.max()!
        XCTAssertEqual(Double(20 * log10(after / before)), 20 * log10(cookbookMagnitude(.lowShelf(gain: 12), frequency: 150, q: 0.7071, at: 100)), accuracy: 0.1)
    }
}
