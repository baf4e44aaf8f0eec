import Foundation

/// Simulated speaker-to-microphone impulse responses at 48 kHz, deterministic, each normalised so
/// the peak of its magnitude response is 0 dB: the loop gain at the worst frequency is then the
/// chain's gain.
public enum RoomImpulse: String, CaseIterable, Sendable {
    /// A small room: direct path after 3 ms, a few early reflections, four strong decaying modes
    /// between 200 Hz and 2.7 kHz, and a diffuse tail with an RT60 of 300 ms.
    case builtIn
    /// A PA on a stage: a reflective wall 0.6 m behind the microphone (a comb every 290 Hz), two
    /// very strong modes, and a livelier tail (RT60 500 ms).
    case stage
    /// A small modal room: five strong low-mid modes (90–310 Hz) over a short tail. At its modes'
    /// peaks the loop's phase misses zero, so it howls first on two of their flanks, and 6 dB past
    /// that edge its tail's peaks howl too, in more bands than eight notches cover
    /// (`staccato-bench feedback` counts them).
    case smallRoomModal
    /// Exponentially decaying noise (RT60 400 ms) after the direct path: no modes.
    case diffuse
    /// PA rooms (`ResonantRoom.paRooms`): reverberation of 0.2, 0.4 and 0.6 s behind a speaker
    /// with two or three 12 dB resonances.
    case pa02, pa04, pa06

    public static let sampleRate = 48_000.0
    /// 0.5 s, the length of the rooms built here (the PA rooms are as long as their
    /// reverberation): the tails are 50 dB down or more by then.
    public static let frameCount = 24_000

    /// The impulse response, normalised to a 0 dB magnitude peak.
    /// - Thread: control.
    public func response() -> [Float] {
        let response = ResonantRoom.paRooms.first { $0.name == rawValue }?.impulseResponse(sampleRate: Self.sampleRate) ?? built()
        let peak = Self.magnitudePeak(response)
        return response.map { $0 / peak }
    }

    /// The response of a room made here, unnormalised.
    func built() -> [Float] {
        var generator = DeterministicRandom(seed: seed)
        var ir = [Double](repeating: 0, count: Self.frameCount)
        let rate = Self.sampleRate
        func add(delaySeconds: Double, _ amplitude: Double) {
            let position = Int((delaySeconds * rate).rounded())
            if position < ir.count { ir[position] += amplitude }
        }
        /// A decaying resonance A·e^(−t/τ)·sin(2πft + φ), starting at `start` seconds; τ from T60.
        func addMode(hertz: Double, t60: Double, amplitude: Double, start: Double) {
            let tau = t60 / log(1_000)
            let phase = generator.uniform() * 2 * Double.pi
            let first = Int(start * rate)
            for n in first..<ir.count {
                let t = Double(n - first) / rate
                ir[n] += amplitude * exp(-t / tau) * sin(2 * Double.pi * hertz * t + phase)
            }
        }
        func addTail(t60: Double, sigma: Double, start: Double) {
            let tau = t60 / log(1_000)
            let first = Int(start * rate)
            for n in first..<ir.count {
                let t = Double(n - first) / rate
                ir[n] += sigma * exp(-t / tau) * generator.gaussian()
            }
        }
        switch self {
        case .builtIn:
            add(delaySeconds: 0.003, 1)
            for _ in 0..<5 {
                add(delaySeconds: 0.004 + generator.uniform() * 0.012, (generator.uniform() - 0.5) * 0.9)
            }
            addTail(t60: 0.3, sigma: 0.08, start: 0.004)
            for (hertz, t60) in [(210.0, 0.7), (545.0, 0.6), (1_230.0, 0.5), (2_650.0, 0.45)] {
                addMode(hertz: hertz, t60: t60, amplitude: 28 / (t60 / log(1_000) * rate / 2), start: 0.003)
            }
        case .stage:
            add(delaySeconds: 0.0025, 1)
            add(delaySeconds: 0.0025 + 0.0035, 0.85)  // the wall behind the microphone
            add(delaySeconds: 0.0025 + 0.007, 0.6)
            add(delaySeconds: 0.0025 + 0.0105, 0.4)
            addTail(t60: 0.5, sigma: 0.05, start: 0.012)
            for (hertz, t60) in [(315.0, 0.9), (1_600.0, 0.7)] {
                addMode(hertz: hertz, t60: t60, amplitude: 36 / (t60 / log(1_000) * rate / 2), start: 0.0025)
            }
        case .smallRoomModal:
            add(delaySeconds: 0.002, 1)
            for _ in 0..<4 {
                add(delaySeconds: 0.003 + generator.uniform() * 0.008, (generator.uniform() - 0.5) * 0.8)
            }
            addTail(t60: 0.25, sigma: 0.08, start: 0.003)
            for (hertz, t60) in [(92.0, 0.9), (138.0, 0.8), (177.0, 0.8), (231.0, 0.7), (306.0, 0.6)] {
                addMode(hertz: hertz, t60: t60, amplitude: 26 / (t60 / log(1_000) * rate / 2), start: 0.002)
            }
        case .diffuse:
            add(delaySeconds: 0.003, 1)
            addTail(t60: 0.4, sigma: 0.1, start: 0.003)
        case .pa02, .pa04, .pa06:
            preconditionFailure("made by ResonantRoom (response())")
        }
        return ir.map { Float($0) }
    }

    var seed: UInt64 {
        switch self {
        case .builtIn: 0x5EED_0001
        case .stage: 0x5EED_0002
        case .smallRoomModal: 0x5EED_0003
        case .diffuse: 0x5EED_0004
        case .pa02, .pa04, .pa06: 0  // ResonantRoom.paRooms carry their own
        }
    }

    /// The peak of |H(f)| on a grid of 0.37 Hz (a 131072-point FFT).
    /// - Thread: control.
    public static func magnitudePeak(_ ir: [Float]) -> Float {
        let size = 1 << 17
        var real = ir.prefix(size).map(Double.init) + [Double](repeating: 0, count: max(0, size - ir.count))
        var imaginary = [Double](repeating: 0, count: size)
        FourierTransform(size: size).transform(real: &real, imaginary: &imaginary)
        var peak = 0.0
        for bin in 0...(size / 2) { peak = max(peak, (real[bin] * real[bin] + imaginary[bin] * imaginary[bin]).squareRoot()) }
        return Float(peak)
    }
}
