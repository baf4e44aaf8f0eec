import Foundation

/// A speech-like excitation: syllables of harmonic voice (pitch 100–230 Hz gliding by up to ±20 %
/// within a syllable, harmonics to 4 kHz shaped by two moving formants, a little breath noise)
/// with raised-cosine envelopes, separated by pauses of 40–400 ms.
public enum SpeechLikeSignal {
    /// - Parameters:
    ///   - peakDecibels: the loudest sample, dBFS.
    /// - Thread: control.
    public static func speechLike(seconds: Double, sampleRate: Double = 48_000, seed: UInt64 = 7,
                                  peakDecibels: Float = -24) -> [Float] {
        var generator = DeterministicRandom(seed: seed)
        let total = Int(seconds * sampleRate)
        var signal = [Float](repeating: 0, count: total)
        var position = Int(0.05 * sampleRate)
        while position < total {
            let length = Int((0.12 + 0.2 * generator.uniform()) * sampleRate)
            let startPitch = 100 + 130 * generator.uniform()
            let endPitch = startPitch * (0.8 + 0.4 * generator.uniform())
            let formant1 = 350 + 500 * generator.uniform(), formant2 = 1_000 + 1_300 * generator.uniform()
            let loudness = 0.5 + 0.5 * generator.uniform()
            var phase = 0.0
            let attack = Int(0.02 * sampleRate), release = Int(0.04 * sampleRate)
            for n in 0..<length where position + n < total {
                let progress = Double(n) / Double(length)
                let pitch = startPitch + (endPitch - startPitch) * progress
                phase += pitch / sampleRate
                if phase >= 1 { phase -= 1 }
                var sample = 0.0
                var harmonic = 1
                while Double(harmonic) * pitch < 4_000 {
                    let h = Double(harmonic) * pitch
                    // −6 dB/octave source, two formant bumps.
                    let f1 = 1 / (1 + pow((h - formant1) / 120, 2)), f2 = 1 / (1 + pow((h - formant2) / 200, 2))
                    let amplitude = (0.3 + 2 * f1 + 1.2 * f2) / Double(harmonic)
                    sample += amplitude * sin(2 * Double.pi * phase * Double(harmonic))
                    harmonic += 1
                }
                sample += 0.02 * generator.gaussian()
                var envelope = 1.0
                if n < attack { envelope = 0.5 - 0.5 * cos(Double.pi * Double(n) / Double(attack)) }
                if n > length - release { envelope = 0.5 - 0.5 * cos(Double.pi * Double(length - n) / Double(release)) }
                signal[position + n] = Float(sample * envelope * loudness)
            }
            position += length + Int((0.04 + 0.36 * generator.uniform()) * sampleRate)
        }
        let peak = signal.map(abs).max() ?? 1
        let scale = Float(pow(10, Double(peakDecibels) / 20)) / max(peak, 1e-9)
        return signal.map { $0 * scale }
    }
}
