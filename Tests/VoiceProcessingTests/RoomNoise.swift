import DSP
import Foundation
import TestSupport

/// The noises a live microphone meets, made for the tests, seeded: pink noise (a room's and a
/// preamp's hiss), mains hum with its harmonics (a ground loop), and a fan.
enum RoomNoise {
    /// Pink noise (−3 dB an octave), seeded, at `levelDecibels` RMS: white noise through Paul
    /// Kellet's economy filter (three poles, within 0.5 dB of pink from 10 Hz up at 48 kHz).
    static func pink(count: Int, levelDecibels: Float, seed: UInt64) -> [Float] {
        var generator = SeededGenerator(state: seed)
        var b0 = 0.0, b1 = 0.0, b2 = 0.0
        var samples = (0..<count).map { _ -> Float in
            let white = Double.random(in: -1...1, using: &generator)
            b0 = 0.99765 * b0 + white * 0.0990460
            b1 = 0.96300 * b1 + white * 0.2965164
            b2 = 0.57000 * b2 + white * 1.0526913
            return Float(b0 + b1 + b2 + white * 0.1848)
        }
        scale(&samples, toDecibels: levelDecibels)
        return samples
    }

    /// Mains hum as a ground loop makes it: a fundamental near `hertz` that wanders by ±`drift`
    /// Hz over seven seconds, with harmonics up to 1.5 kHz, the odd ones stronger (a rectifier's
    /// buzz), each at a seeded phase; `levelDecibels` RMS in all.
    static func hum(count: Int, hertz: Double, drift: Double = 0.05, levelDecibels: Float, sampleRate: Double, seed: UInt64) -> [Float] {
        var generator = SeededGenerator(state: seed)
        let harmonics = Int(1_500 / hertz)
        let amplitudes = (1...harmonics).map { k in (k % 2 == 1 ? 1.0 : 0.4) / Double(k) }
        let phases = (1...harmonics).map { _ in Double.random(in: 0..<1, using: &generator) }
        var phase = 0.0
        var samples = [Float](repeating: 0, count: count)
        for index in 0..<count {
            let seconds = Double(index) / sampleRate
            phase += (hertz + drift * sin(2 * Double.pi * seconds / 7)) / sampleRate
            phase -= phase.rounded(.down)
            var sum = 0.0
            for k in 1...harmonics { sum += amplitudes[k - 1] * sin(2 * Double.pi * (Double(k) * phase + phases[k - 1])) }
            samples[index] = Float(sum)
        }
        scale(&samples, toDecibels: levelDecibels)
        return samples
    }

    /// A fan: broadband rumble falling 6 dB an octave above 200 Hz, its level beating at the
    /// blades' rate (`bladeHertz`, 12 % deep); `levelDecibels` RMS.
    static func fan(count: Int, bladeHertz: Double = 23, levelDecibels: Float, sampleRate: Double, seed: UInt64) -> [Float] {
        var generator = SeededGenerator(state: seed)
        var lowPass = Biquad(BiquadCoefficients(.lowPass, frequency: 200, q: 0.6, sampleRate: sampleRate))
        var samples = (0..<count).map { index -> Float in
            let white = Float.random(in: -1...1, using: &generator)
            return white * Float(1 + 0.12 * sin(2 * Double.pi * bladeHertz * Double(index) / sampleRate))
        }
        samples.withUnsafeMutableBufferPointer { lowPass.process($0.baseAddress!, frameCount: $0.count) }
        scale(&samples, toDecibels: levelDecibels)
        return samples
    }

    static func scale(_ samples: inout [Float], toDecibels levelDecibels: Float) {
        let rms = SignalAnalysis.rms(samples[...])
        let gain = decibels(levelDecibels) / max(rms, 1e-20)
        for index in samples.indices { samples[index] *= gain }
    }
}
