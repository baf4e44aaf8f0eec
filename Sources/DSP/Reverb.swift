// A Freeverb-class stereo reverb (after Jezar's Freeverb, public domain): per channel, eight
// parallel comb filters with a one-pole low-pass in their feedback paths (the "damping": highs die
// first, as in a real room) feed four series all-passes (diffusion). The right channel's delay
// lines are 23 samples (at 44.1 kHz) longer than the left's, so the two tails are decorrelated and
// the reverb sounds wide.
//
// Differences from the original, each for a reason:
// - Every length is scaled from the 44.1 kHz tunings to the engine rate, and so is the damping
//   pole, so a preset sounds (and decays) the same at any rate.
// - The decay is set as RT60 in seconds, and each comb gets its own feedback 10^(−3·L/(RT60·fs))
//   so that all eight decay at the same rate (Freeverb's single feedback makes the short combs die
//   first). `setRoomSize` keeps Freeverb's 0…1 knob, mapped to the RT60 it would give.
// - The input gain is normalised by the combs' energy gain, so the wet level stays about the same
//   whether the tail is short or long.
// - The all-passes are true Schroeder all-passes (Freeverb's are not quite all-pass).

/// The reverb's named settings. `rt60Seconds` is the broadband decay time, as measured: T30
/// (Schroeder backward integration of the impulse response's energy, a line fitted from −5 to
/// −35 dB, extrapolated to −60 dB) at 48 kHz; `ReverbTests` checks each within 10 %. Damping makes
/// the highs die sooner than the lows, so the low-frequency decay the preset sets
/// (`lowFrequencyRT60Seconds`, what `Reverb.setDecay` takes) is longer, by a factor calibrated
/// against that measurement. All four are Freeverb settings (the plate is a bright, nearly
/// undamped Freeverb, not a Dattorro plate).
public enum ReverbPreset: Sendable, CaseIterable, BitwiseCopyable {
    /// A small, fairly dead room: RT60 0.5 s, strong damping.
    case smallRoom
    /// A medium room: RT60 1.0 s.
    case mediumRoom
    /// A large concert hall: RT60 2.8 s, gently damped.
    case largeHall
    /// A bright plate: RT60 1.8 s, almost no damping.
    case plate

    /// For display.
    public var name: String {
        switch self {
        case .smallRoom: "Small room"
        case .mediumRoom: "Medium room"
        case .largeHall: "Large hall"
        case .plate: "Plate"
        }
    }

    /// The broadband decay time to −60 dB (T30), in seconds.
    public var rt60Seconds: Double {
        @inlinable @_noAllocation @_noLocks get {
            switch self {
            case .smallRoom: 0.5
            case .mediumRoom: 1.0
            case .largeHall: 2.8
            case .plate: 1.8
            }
        }
    }

    /// The decay time to −60 dB below the damping's reach (the combs' DC loop gain), in seconds.
    public var lowFrequencyRT60Seconds: Double {
        @inlinable @_noAllocation @_noLocks get {
            switch self {
            case .smallRoom: 0.59
            case .mediumRoom: 1.17
            case .largeHall: 3.18
            case .plate: 2.02
            }
        }
    }

    /// High-frequency damping, 0 (none) … 1 (Freeverb's strongest).
    public var damping: Float {
        @inlinable @_noAllocation @_noLocks get {
            switch self {
            case .smallRoom: 0.7
            case .mediumRoom: 0.5
            case .largeHall: 0.35
            case .plate: 0.05
            }
        }
    }
}

/// One lowpass-feedback comb filter: a delay line whose output, low-passed, is fed back scaled by
/// `feedback`.
@usableFromInline
struct ReverbComb {
    @usableFromInline let buffer: UnsafeMutablePointer<Float>
    @usableFromInline let length: Int
    @usableFromInline var index = 0
    /// The feedback low-pass's state.
    @usableFromInline var store: Float = 0
    @usableFromInline var feedback: Float = 0
    /// The feedback low-pass's pole (0 = no damping).
    @usableFromInline var damping: Float = 0

    @usableFromInline
    init(buffer: UnsafeMutablePointer<Float>, length: Int) {
        self.buffer = buffer
        self.length = length
    }

    /// Runs `frameCount` frames of `input` through the comb, adding its output to `output`.
    @inlinable @_noAllocation @_noLocks
    mutating func accumulate(_ input: UnsafePointer<Float>, into output: UnsafeMutablePointer<Float>, frameCount: Int) {
        var state = store, position = index, done = 0
        let g = feedback, d = damping, oneMinusD = 1 - damping
        // Runs up to the end of the delay line, then wraps: no wrap test per sample.
        while done < frameCount {
            let run = min(frameCount - done, length - position)
            let line = buffer + position, source = input + done, destination = output + done
            for frame in 0..<run {
                let delayed = line[frame]
                state = delayed * oneMinusD + state * d
                line[frame] = source[frame] + state * g
                destination[frame] += delayed
            }
            done += run
            position += run
            if position == length { position = 0 }
        }
        index = position
        store = abs(state) < 1e-20 ? 0 : state  // denormal protection
    }
}

/// One Schroeder all-pass: (z^−M − g) / (1 − g·z^−M).
@usableFromInline
struct ReverbAllPass {
    @usableFromInline let buffer: UnsafeMutablePointer<Float>
    @usableFromInline let length: Int
    @usableFromInline var index = 0

    @usableFromInline
    init(buffer: UnsafeMutablePointer<Float>, length: Int) {
        self.buffer = buffer
        self.length = length
    }

    /// Filters `frameCount` frames of `samples` in place.
    @inlinable @_noAllocation @_noLocks
    mutating func process(_ samples: UnsafeMutablePointer<Float>, frameCount: Int, gain g: Float) {
        var position = index, done = 0
        while done < frameCount {
            let run = min(frameCount - done, length - position)
            let line = buffer + position, block = samples + done
            for frame in 0..<run {
                let delayed = line[frame]
                let w = block[frame] + g * delayed
                line[frame] = w
                block[frame] = delayed - g * w
            }
            done += run
            position += run
            if position == length { position = 0 }
        }
        index = position
    }
}

/// A stereo reverb, processed in place. A value type owning raw storage: create it (allocating) on
/// the control thread, hand it to the audio thread, and call `deallocate()` once nothing uses it.
///
/// The wet/dry mix is an equal-power crossfade (dry = cos(½π·m), wet = sin(½π·m)): the tail is
/// uncorrelated with the dry signal, so this keeps the loudness constant across the knob's travel.
/// A mix change is reached by ramping both gains linearly across the next block: no zipper noise.
/// Decay and damping changes take effect at the next block (they only scale the recirculating
/// tail, which makes no audible step).
///
/// The input to the tanks is the mono sum (L+R)/2; both channels' tanks hear it.
public struct Reverb: @unchecked Sendable {  // raw storage, used by one thread at a time
    public static let combCount = 8
    public static let allPassCount = 4
    /// Freeverb's tunings at 44.1 kHz, in samples.
    @usableFromInline static let combTunings: (Int, Int, Int, Int, Int, Int, Int, Int) = (1116, 1188, 1277, 1356, 1422, 1491, 1557, 1617)
    @usableFromInline static let allPassTunings: (Int, Int, Int, Int) = (556, 441, 341, 225)
    @usableFromInline static let stereoSpread = 23
    @usableFromInline static let allPassGain: Float = 0.5
    /// Tiny DC added to the tanks' input so no feedback path ever decays into denormals (it is
    /// −360 dB: far below anything audible, far above the denormal range).
    @usableFromInline static let antiDenormal: Float = 1e-18

    public let sampleRate: Double
    public let maxFrameCount: Int
    /// Combs 0..<8 are the left channel's, 8..<16 the right's; likewise the all-passes (4 + 4).
    @usableFromInline let combs: UnsafeMutablePointer<ReverbComb>
    @usableFromInline let allPasses: UnsafeMutablePointer<ReverbAllPass>
    /// All delay lines, one allocation.
    @usableFromInline let lines: UnsafeMutablePointer<Float>
    /// Three blocks of scratch: the mono input, the left wet, the right wet.
    @usableFromInline let scratch: UnsafeMutablePointer<Float>

    @usableFromInline var inputGain: Float = 0
    @usableFromInline var dryGain: Float = 1, wetGain: Float = 0
    @usableFromInline var targetDryGain: Float = 1, targetWetGain: Float = 0
    @usableFromInline var currentRT60Seconds: Double = 0
    @usableFromInline var currentDamping: Float = 0
    @usableFromInline var currentMixPercent: Float = 0
    /// The low-frequency decay time to −60 dB last set, in seconds (see `setDecay`).
    @inlinable public var decaySeconds: Double { currentRT60Seconds }
    /// The damping last set, 0…1.
    @inlinable public var damping: Float { currentDamping }
    /// The mix last set (the target of any ramp), 0…100 %.
    @inlinable public var mixPercent: Float { currentMixPercent }

    /// A reverb at `sampleRate` for blocks of up to `maxFrameCount` (longer ones are split), set to
    /// `preset` with a mix of `mixPercent`. Not real-time safe: allocates.
    public init(sampleRate: Double, maxFrameCount: Int, preset: ReverbPreset = .mediumRoom, mixPercent: Float = 0) {
        self.sampleRate = sampleRate
        self.maxFrameCount = max(1, maxFrameCount)
        let scale = sampleRate / 44_100
        func scaled(_ samples: Int) -> Int { max(1, Int((Double(samples) * scale).rounded())) }
        let combTunings = withUnsafeBytes(of: Reverb.combTunings) { Array($0.bindMemory(to: Int.self)) }
        let allPassTunings = withUnsafeBytes(of: Reverb.allPassTunings) { Array($0.bindMemory(to: Int.self)) }
        var combLengths: [Int] = [], allPassLengths: [Int] = []
        for offset in [0, Reverb.stereoSpread] {
            combLengths += combTunings.map { scaled($0 + offset) }
            allPassLengths += allPassTunings.map { scaled($0 + offset) }
        }
        let total = combLengths.reduce(0, +) + allPassLengths.reduce(0, +)
        lines = .allocate(capacity: total)
        lines.initialize(repeating: 0, count: total)
        combs = .allocate(capacity: combLengths.count)
        allPasses = .allocate(capacity: allPassLengths.count)
        var next = lines
        for (number, length) in combLengths.enumerated() {
            (combs + number).initialize(to: ReverbComb(buffer: next, length: length))
            next += length
        }
        for (number, length) in allPassLengths.enumerated() {
            (allPasses + number).initialize(to: ReverbAllPass(buffer: next, length: length))
            next += length
        }
        scratch = .allocate(capacity: 3 * self.maxFrameCount)
        scratch.initialize(repeating: 0, count: 3 * self.maxFrameCount)
        setPreset(preset)
        setMix(mixPercent)
        dryGain = targetDryGain
        wetGain = targetWetGain
    }

    /// Frees the storage. Call once, when no thread uses the reverb any more.
    public func deallocate() {
        lines.deallocate()
        combs.deallocate()
        allPasses.deallocate()
        scratch.deallocate()
    }

    /// Silences the tail at once (not for use while it sounds: it would click).
    @inlinable @_noAllocation @_noLocks
    public mutating func reset() {
        for number in 0..<(2 * Reverb.combCount) {
            combs[number].store = 0
            combs[number].index = 0
            combs[number].buffer.update(repeating: 0, count: combs[number].length)
        }
        for number in 0..<(2 * Reverb.allPassCount) {
            allPasses[number].index = 0
            allPasses[number].buffer.update(repeating: 0, count: allPasses[number].length)
        }
    }

    /// Applies `preset`'s decay and damping (the mix is left alone).
    @inlinable @_noAllocation @_noLocks
    public mutating func setPreset(_ preset: ReverbPreset) {
        setDamping(preset.damping)
        setDecay(seconds: preset.lowFrequencyRT60Seconds)
    }

    /// Sets the wet/dry mix, 0 (dry only) … 100 % (wet only), reached across the next block.
    @inlinable @_noAllocation @_noLocks
    public mutating func setMix(_ percent: Float) {
        let mix = min(max(percent, 0), 100) / 100
        currentMixPercent = mix * 100
        if mix == 0 {
            targetDryGain = 1; targetWetGain = 0  // exact pass-through
        } else if mix == 1 {
            targetDryGain = 0; targetWetGain = 1
        } else {
            targetWetGain = Float(sineOfTurns(Double(mix) * 0.25))
            targetDryGain = Float(sineOfTurns(Double(mix) * 0.25 + 0.25))
        }
    }

    /// Sets the decay time to −60 dB, clamped to 0.05…60 s. This is the decay of the low
    /// frequencies, which the damping does not reach; with damping the broadband RT60 is shorter
    /// (by about 10–15 % at the presets' damping).
    @inlinable @_noAllocation @_noLocks
    public mutating func setDecay(seconds: Double) {
        let rt60 = min(max(seconds, 0.05), 60)
        currentRT60Seconds = rt60
        // g = 10^(−3·L/(RT60·fs)) = 2^(−3·log2(10)·L/(RT60·fs)).
        let exponentPerSample = Float(-3 * 3.321_928_094_887_362 / (rt60 * sampleRate))
        var energy: Float = 0
        for number in 0..<(2 * Reverb.combCount) {
            let g = fastExp2(exponentPerSample * Float(combs[number].length))
            combs[number].feedback = g
            energy += 1 / (1 - g * g)  // a comb's energy gain for white input
        }
        // Normalise so the 8 combs of one channel give about unity energy gain together.
        // (√ via exp2/log2: `squareRoot()` is an opaque call to the real-time checker.)
        inputGain = fastExp2(0.5 * log2Approximation(2 / energy))
    }

    /// Sets Freeverb's room size knob, 0…1: the decay its feedback 0.7 + 0.28·size would give the
    /// average comb (0 → 0.6 s, 0.5 → 1.2 s, 1 → 10.7 s).
    @inlinable @_noAllocation @_noLocks
    public mutating func setRoomSize(_ size: Float) {
        let feedback = 0.7 + 0.28 * min(max(size, 0), 1)
        let averageLengthSeconds: Float = 1_378 / 44_100
        // RT60 = −3·L / log10(g) = −3·L·log2(10) / log2(g).
        setDecay(seconds: Double(-3 * averageLengthSeconds * 3.321_928_1 / log2Approximation(feedback)))
    }

    /// Sets high-frequency damping, 0 (none) … 1 (strongest: Freeverb's 0.4 pole at 44.1 kHz).
    @inlinable @_noAllocation @_noLocks
    public mutating func setDamping(_ amount: Float) {
        let clamped = min(max(amount, 0), 1)
        currentDamping = clamped
        // The pole p at 44.1 kHz, moved to this rate keeping its time constant: p^(44100/fs).
        let pole = clamped * 0.4
        let d = pole <= 0 ? 0 : fastExp2(log2Approximation(pole) * Float(44_100 / sampleRate))
        for number in 0..<(2 * Reverb.combCount) { combs[number].damping = d }
    }

    /// Reverberates `frameCount` frames of `left` and `right` in place.
    @inlinable @_noAllocation @_noLocks
    public mutating func process(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, frameCount: Int) {
        var done = 0
        while done < frameCount {
            let count = min(frameCount - done, maxFrameCount)
            processBlock(left: left + done, right: right + done, frameCount: count)
            done += count
        }
    }

    @inlinable @_noAllocation @_noLocks
    mutating func processBlock(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, frameCount: Int) {
        let input = scratch, wetLeft = scratch + maxFrameCount, wetRight = scratch + 2 * maxFrameCount
        let gain = inputGain * 0.5
        for frame in 0..<frameCount {
            input[frame] = (left[frame] + right[frame]) * gain + Reverb.antiDenormal
        }
        wetLeft.update(repeating: 0, count: frameCount)
        wetRight.update(repeating: 0, count: frameCount)
        for number in 0..<Reverb.combCount {
            combs[number].accumulate(input, into: wetLeft, frameCount: frameCount)
            combs[number + Reverb.combCount].accumulate(input, into: wetRight, frameCount: frameCount)
        }
        for number in 0..<Reverb.allPassCount {
            allPasses[number].process(wetLeft, frameCount: frameCount, gain: Reverb.allPassGain)
            allPasses[number + Reverb.allPassCount].process(wetRight, frameCount: frameCount, gain: Reverb.allPassGain)
        }
        // Mix, ramping the gains linearly from where they were to their targets across the block.
        var dry = dryGain, wet = wetGain
        if dry == targetDryGain && wet == targetWetGain {
            for frame in 0..<frameCount {
                left[frame] = left[frame] * dry + wetLeft[frame] * wet
                right[frame] = right[frame] * dry + wetRight[frame] * wet
            }
        } else {
            let steps = Float(frameCount)
            let dryStep = (targetDryGain - dry) / steps, wetStep = (targetWetGain - wet) / steps
            for frame in 0..<frameCount {
                dry += dryStep; wet += wetStep
                left[frame] = left[frame] * dry + wetLeft[frame] * wet
                right[frame] = right[frame] * dry + wetRight[frame] * wet
            }
            dryGain = targetDryGain
            wetGain = targetWetGain
        }
    }
}
