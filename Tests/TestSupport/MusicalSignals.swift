import Foundation

/// Test signals: the musical material that must not set the feedback suppressor off (a swell, a
/// tremolo, a held pure note, piano notes), and a howl that must.
public enum MusicalSignals {
    public static let rate = 48_000.0

    public static func amplitude(_ decibels: Double) -> Double { pow(10, decibels / 20) }

    /// Scales so the largest sample is at `peakDecibels`.
    public static func normalised(_ signal: [Double], peakDecibels: Double) -> [Float] {
        let peak = signal.map(abs).max() ?? 1
        return signal.map { Float($0 / peak * amplitude(peakDecibels)) }
    }

    /// (a) A note with harmonics that swells by 15 dB over 200 ms to a −15 dBFS peak. `heldFirst`:
    /// 400 ms at the low level before the swell (else the swell starts at the onset).
    public static func swell(fundamental: Double, vibrato: Bool, heldFirst: Bool) -> [Float] {
        let harmonics = [1.0, 0.5, 0.35, 0.25, 0.15]
        let attack = 0.03, hold = heldFirst ? 0.4 : 0.0, rise = 0.2, top = 0.6, release = 0.1
        let total = attack + hold + rise + top + release
        var phase = 0.0
        var out = [Double]()
        for n in 0..<Int((total + 0.2) * rate) {
            let t = Double(n) / rate
            var decibels: Double
            if t < attack { decibels = -15 } else if t < attack + hold { decibels = -15 }
            else if t < attack + hold + rise { decibels = -15 + 15 * (t - attack - hold) / rise }
            else { decibels = 0 }
            var envelope = amplitude(decibels)
            if t < attack { envelope *= t / attack }
            let end = attack + hold + rise + top
            if t > end { envelope *= max(0, 1 - (t - end) / release) }
            let cents = vibrato ? 50 * sin(2 * Double.pi * 5.5 * t) : 0
            phase += fundamental * pow(2, cents / 1_200) / rate
            var sample = 0.0
            for (index, weight) in harmonics.enumerated() {
                sample += weight * sin(2 * Double.pi * phase * Double(index + 1))
            }
            out.append(sample * envelope)
        }
        return normalised(out, peakDecibels: -15)
    }

    /// (b) 440 Hz with a 2 Hz tremolo 12 dB deep, 4 s, peaking at −15 dBFS.
    public static func tremolo() -> [Float] {
        (0..<Int(4 * rate)).map { n in
            let t = Double(n) / rate
            let decibels = -15 - 6 * (1 - cos(2 * Double.pi * 2 * t))
            let onset = min(1, t / 0.01)
            return Float(amplitude(decibels) * onset * sin(2 * Double.pi * 440 * t))
        }
    }

    /// (c) A pure held 440 Hz note (a flute, a whistle), 2 s at −12 dBFS, 10 ms attack.
    public static func heldNote() -> [Float] {
        (0..<Int(2.2 * rate)).map { n in
            let t = Double(n) / rate
            let envelope = min(1, t / 0.01) * (t > 2 ? max(0, 1 - (t - 2) / 0.05) : 1)
            return Float(amplitude(-12) * envelope * sin(2 * Double.pi * 440 * t))
        }
    }

    /// (d) Piano-like notes: an arpeggio and a chord, each note harmonic (slightly stretched),
    /// struck and decaying (higher partials faster), peaking at −12 dBFS.
    public static func pianoNotes() -> [Float] {
        let notes: [(start: Double, midi: Int)] = [(0, 60), (0.3, 64), (0.6, 67), (0.9, 72), (1.2, 67), (1.5, 64),
                                                   (1.8, 60), (2.4, 57), (2.4, 60), (2.4, 64), (3.2, 69), (3.5, 65)]
        let total = Int(5 * rate)
        var out = [Double](repeating: 0, count: total)
        for note in notes {
            let f0 = 440 * pow(2, Double(note.midi - 69) / 12)
            let first = Int(note.start * rate)
            for partial in 1...8 {
                let f = f0 * Double(partial) * (1 + 0.0004 * Double(partial * partial))
                let weight = 1 / Double(partial)
                let decay = 1.2 / Double(partial)  // seconds to 1/e
                for n in first..<total {
                    let t = Double(n - first) / rate
                    let onset = min(1, t / 0.003)
                    out[n] += weight * onset * exp(-t / decay) * sin(2 * Double.pi * f * t)
                }
            }
        }
        return normalised(out, peakDecibels: -12)
    }

    /// (e) A pure tone (a whistle, a sine pad) faded in linearly in amplitude over
    /// `attackSeconds` to −6 dBFS, as an SF2 attack or a fader is, then held for a second.
    public static func linearAttack(hertz: Double, attackSeconds: Double) -> [Float] {
        (0..<Int((attackSeconds + 1) * rate)).map { n in
            let t = Double(n) / rate
            return Float(amplitude(-6) * min(1, t / attackSeconds) * sin(2 * Double.pi * hertz * t))
        }
    }

    /// (f) A pure tone held at −30 dBFS for half a second, then swelling by `riseDecibels` at a
    /// constant `decibelsPerSecond` (a straight line in dB, as a loop's growth is), then held for
    /// `holdSeconds`.
    public static func pureSwell(hertz: Double, riseDecibels: Double, decibelsPerSecond: Double, holdSeconds: Double = 1) -> [Float] {
        let start = 0.5, rise = riseDecibels / decibelsPerSecond
        return (0..<Int((start + rise + holdSeconds) * rate)).map { n in
            let t = Double(n) / rate
            let decibels = -30 + riseDecibels * min(1, max(0, t - start) / rise)
            return Float(amplitude(decibels) * min(1, t / 0.01) * sin(2 * Double.pi * hertz * t))
        }
    }

    /// A howl building open loop: a tone at `hertz` growing at `decibelsPerSecond` from −60 dBFS
    /// up to −6 dBFS, under quiet noise.
    public static func growingTone(hertz: Double, decibelsPerSecond: Double, seconds: Double) -> [Float] {
        var state: UInt64 = 99
        return (0..<Int(seconds * rate)).map { n in
            let t = Double(n) / rate
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let noise = (Double(state >> 40) / Double(1 << 24) * 2 - 1) * 0.001
            let level = min(-60 + decibelsPerSecond * t, -6)
            return Float(amplitude(level) * sin(2 * Double.pi * hertz * t) + noise)
        }
    }
}
