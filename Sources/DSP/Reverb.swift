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
//
// The plate preset runs Dattorro's plate tank instead (PlateReverb.swift); the mix, the mono input
// and the delay-line and all-pass helpers below are shared by both tanks.

/// The reverb's named settings. `rt60Seconds` is the broadband decay time, as measured: T30
/// (Schroeder backward integration of the impulse response's energy, a line fitted from −5 to
/// −35 dB, extrapolated to −60 dB) at 48 kHz; `ReverbTests` checks each within 10 %. Damping makes
/// the highs die sooner than the lows, so the low-frequency decay the preset sets
/// (`lowFrequencyRT60Seconds`, what `Reverb.setDecay` takes) is longer, by a factor calibrated
/// against that measurement. The three rooms are Freeverb settings; the plate is Dattorro's plate
/// tank (see `DattorroPlate`), whose damping runs only twice per trip round a long loop, so it
/// shortens the broadband decay less.
public enum ReverbPreset: Sendable, CaseIterable, BitwiseCopyable {
    /// A small, fairly dead room: RT60 0.5 s, strong damping.
    case smallRoom
    /// A medium room: RT60 1.0 s.
    case mediumRoom
    /// A large concert hall: RT60 2.8 s, gently damped.
    case largeHall
    /// Dattorro's plate: RT60 1.8 s, bright (lightly damped), dense from the start, with a slowly
    /// modulated tail and a 20 ms pre-delay.
    case plate

    /// For display.
    /// - Thread: any.
    public var name: String {
        switch self {
        case .smallRoom: "Small room"
        case .mediumRoom: "Medium room"
        case .largeHall: "Large hall"
        case .plate: "Plate"
        }
    }

    /// The broadband decay time to −60 dB (T30), in seconds.
    /// - Thread: any.
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

    /// The decay time to −60 dB below the damping's reach (the tank's DC loop gain), in seconds.
    /// - Thread: any.
    public var lowFrequencyRT60Seconds: Double {
        @inlinable @_noAllocation @_noLocks get {
            switch self {
            case .smallRoom: 0.59
            case .mediumRoom: 1.17
            case .largeHall: 3.18
            case .plate: 1.88
            }
        }
    }

    /// High-frequency damping, 0 (none) … 1 (Freeverb's strongest pole, in either tank).
    /// - Thread: any.
    public var damping: Float {
        @inlinable @_noAllocation @_noLocks get {
            switch self {
            case .smallRoom: 0.7
            case .mediumRoom: 0.5
            case .largeHall: 0.35
            case .plate: 0.25
            }
        }
    }
}

/// A circular delay line: the storage of every comb, all-pass and delay in the reverbs. `index` is
/// the oldest sample, the next to leave and where the next one goes.
@usableFromInline
struct ReverbDelayLine {
    @usableFromInline let buffer: UnsafeMutablePointer<Float>
    @usableFromInline let length: Int
    @usableFromInline var index = 0

    @usableFromInline
    init(buffer: UnsafeMutablePointer<Float>, length: Int) {
        self.buffer = buffer
        self.length = length
    }

    /// The sample pushed `length` frames ago: what the next `push` returns.
    @usableFromInline var front: Float {
        @inlinable @_noAllocation @_noLocks get { buffer[index] }
    }

    /// Stores `sample` and returns the one stored `length` frames before it.
    @inlinable @_noAllocation @_noLocks
    mutating func push(_ sample: Float) -> Float {
        let leaving = buffer[index]
        buffer[index] = sample
        index += 1
        if index == length { index = 0 }
        return leaving
    }

    /// The sample pushed `age` frames before the latest (0 is the latest), for 0 ≤ age < length.
    @inlinable @_noAllocation @_noLocks
    func tap(_ age: Int) -> Float {
        let position = index - 1 - age
        return buffer[position < 0 ? position + length : position]
    }

    /// `tap` at a fractional age, linearly interpolated, for 0 ≤ age ≤ length − 2.
    @inlinable @_noAllocation @_noLocks
    func tap(fractional age: Float) -> Float {
        let whole = Int(age)
        let newer = tap(whole), older = tap(whole + 1)
        return newer + (older - newer) * (age - Float(whole))
    }

    /// Silences the line (not for use while it sounds: it would click).
    @inlinable @_noAllocation @_noLocks
    mutating func clear() {
        index = 0
        buffer.update(repeating: 0, count: length)
    }
}

/// One lowpass-feedback comb filter: a delay line whose output, low-passed, is fed back scaled by
/// `feedback`.
@usableFromInline
struct ReverbComb {
    @usableFromInline var line: ReverbDelayLine
    /// The feedback low-pass's state.
    @usableFromInline var store: Float = 0
    @usableFromInline var feedback: Float = 0
    /// The feedback low-pass's pole (0 = no damping).
    @usableFromInline var damping: Float = 0

    @usableFromInline
    init(buffer: UnsafeMutablePointer<Float>, length: Int) {
        line = ReverbDelayLine(buffer: buffer, length: length)
    }

    /// Runs `frameCount` frames of `input` through the comb, adding its output to `output`.
    @inlinable @_noAllocation @_noLocks
    mutating func accumulate(_ input: UnsafePointer<Float>, into output: UnsafeMutablePointer<Float>, frameCount: Int) {
        var state = store, position = line.index, done = 0
        let g = feedback, d = damping, oneMinusD = 1 - damping, length = line.length
        // Runs up to the end of the delay line, then wraps: no wrap test per sample.
        while done < frameCount {
            let run = min(frameCount - done, length - position)
            let samples = line.buffer + position, source = input + done, destination = output + done
            if d == 0 {
                // Undamped (the effects bus's reverb): the low-pass is a wire, so no frame waits on
                // the one before and the loop runs as vectors. (A run never reaches a sample it
                // writes: it stops at the end of the line, longer than any block.)
                state = samples[run - 1]
                for frame in 0..<run {
                    let delayed = samples[frame]
                    samples[frame] = source[frame] + delayed * g
                    destination[frame] += delayed
                }
            } else {
                for frame in 0..<run {
                    let delayed = samples[frame]
                    state = delayed * oneMinusD + state * d
                    samples[frame] = source[frame] + state * g
                    destination[frame] += delayed
                }
            }
            done += run
            position += run
            if position == length { position = 0 }
        }
        line.index = position
        store = abs(state) < 1e-20 ? 0 : state  // denormal protection
    }

    @inlinable @_noAllocation @_noLocks
    mutating func clear() {
        store = 0
        line.clear()
    }
}

/// One Schroeder all-pass: (z^−M − g) / (1 − g·z^−M).
@usableFromInline
struct ReverbAllPass {
    @usableFromInline var line: ReverbDelayLine

    @usableFromInline
    init(buffer: UnsafeMutablePointer<Float>, length: Int) {
        line = ReverbDelayLine(buffer: buffer, length: length)
    }

    /// One step of the recursion, given the sample leaving the delay line: what to store in its
    /// place, and the output. Shared with the plate's modulated all-passes, whose delay line is read
    /// between samples.
    @inlinable @_noAllocation @_noLocks
    static func step(_ input: Float, delayed: Float, gain g: Float) -> (store: Float, output: Float) {
        let w = input + g * delayed
        return (w, delayed - g * w)
    }

    /// Filters one sample.
    @inlinable @_noAllocation @_noLocks
    mutating func process(_ input: Float, gain: Float) -> Float {
        let (store, output) = ReverbAllPass.step(input, delayed: line.front, gain: gain)
        _ = line.push(store)
        return output
    }

    /// Filters `frameCount` frames of `samples` in place.
    @inlinable @_noAllocation @_noLocks
    mutating func process(_ samples: UnsafeMutablePointer<Float>, frameCount: Int, gain g: Float) {
        var position = line.index, done = 0
        let length = line.length
        // As in the comb: runs to the end of the line, then wraps.
        while done < frameCount {
            let run = min(frameCount - done, length - position)
            let delayLine = line.buffer + position, block = samples + done
            for frame in 0..<run {
                let (store, output) = ReverbAllPass.step(block[frame], delayed: delayLine[frame], gain: g)
                delayLine[frame] = store
                block[frame] = output
            }
            done += run
            position += run
            if position == length { position = 0 }
        }
        line.index = position
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
/// The input to the tanks is the mono sum (L+R)/2; both channels' tanks hear it. The rooms use the
/// Freeverb tank, the plate preset Dattorro's; both are allocated at init, so a preset switches
/// tanks on the audio thread without allocating.
public struct Reverb: @unchecked Sendable {  // raw storage, used by one thread at a time
    /// - Thread: any.
    public static let combCount = 8
    /// - Thread: any.
    public static let allPassCount = 4
    /// Freeverb's tunings at 44.1 kHz, in samples.
    @usableFromInline static let combTunings: (Int, Int, Int, Int, Int, Int, Int, Int) = (1116, 1188, 1277, 1356, 1422, 1491, 1557, 1617)
    @usableFromInline static let allPassTunings: (Int, Int, Int, Int) = (556, 441, 341, 225)
    @usableFromInline static let stereoSpread = 23
    @usableFromInline static let allPassGain: Float = 0.5
    /// Tiny DC added to the tanks' input so no feedback path ever decays into denormals (it is
    /// −360 dB: far below anything audible, far above the denormal range).
    @usableFromInline static let antiDenormal: Float = 1e-18

    /// - Thread: any.
    public let sampleRate: Double
    /// - Thread: any.
    public let maxFrameCount: Int
    /// Combs 0..<8 are the left channel's, 8..<16 the right's; likewise the all-passes (4 + 4).
    @usableFromInline let combs: UnsafeMutablePointer<ReverbComb>
    @usableFromInline let allPasses: UnsafeMutablePointer<ReverbAllPass>
    /// All delay lines, one allocation.
    @usableFromInline let lines: UnsafeMutablePointer<Float>
    /// The plate preset's tank (one value, behind a pointer like the combs, so copies share it).
    @usableFromInline let plate: UnsafeMutablePointer<DattorroPlate>
    /// Six blocks of scratch: the mono input, one tank's scaled input, the left and right wet, and
    /// the left and right wet of the tank faded out after a switch.
    @usableFromInline let scratch: UnsafeMutablePointer<Float>
    @usableFromInline static var scratchBlocks: Int { @inlinable @_noAllocation @_noLocks get { 6 } }

    /// Whether the plate sounds rather than the Freeverb tank.
    @usableFromInline var usesPlate = false
    /// Set by a switch of tank: the next block fades the other tank's tail out while the new one
    /// starts from silence, so the switch does not cut the tail with a step.
    @usableFromInline var fadesOutOtherTank = false

    /// The Freeverb tank's input gain (the plate keeps its own).
    @usableFromInline var inputGain: Float = 0
    @usableFromInline var dryGain: Float = 1, wetGain: Float = 0
    @usableFromInline var targetDryGain: Float = 1, targetWetGain: Float = 0
    @usableFromInline var currentRT60Seconds: Double = 0
    @usableFromInline var currentDamping: Float = 0
    @usableFromInline var currentMixPercent: Float = 0
    /// The low-frequency decay time to −60 dB last set, in seconds (see `setDecay`).
    /// - Thread: audio.
    public var decaySeconds: Double { @inlinable @_noAllocation @_noLocks get { currentRT60Seconds } }
    /// The damping last set, 0…1.
    /// - Thread: audio.
    public var damping: Float { @inlinable @_noAllocation @_noLocks get { currentDamping } }
    /// The mix last set (the target of any ramp), 0…100 %.
    /// - Thread: audio.
    public var mixPercent: Float { @inlinable @_noAllocation @_noLocks get { currentMixPercent } }

    /// A reverb at `sampleRate` for blocks of up to `maxFrameCount` (longer ones are split), set to
    /// `preset` with a mix of `mixPercent`.
    /// - Thread: control. Not real-time safe: allocates.
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
        plate = .allocate(capacity: 1)
        plate.initialize(to: DattorroPlate(sampleRate: sampleRate))
        scratch = .allocate(capacity: Reverb.scratchBlocks * self.maxFrameCount)
        scratch.initialize(repeating: 0, count: Reverb.scratchBlocks * self.maxFrameCount)
        setPreset(preset)
        setMix(mixPercent)
        dryGain = targetDryGain
        wetGain = targetWetGain
    }

    /// Frees the storage. Call once, when no thread uses the reverb any more.
    /// - Thread: stopped. Not real-time safe: frees.
    public func deallocate() {
        lines.deallocate()
        combs.deallocate()
        allPasses.deallocate()
        plate.pointee.deallocate()
        plate.deallocate()
        scratch.deallocate()
    }

    /// Silences the tail at once (not for use while it sounds: it would click).
    /// - Thread: audio. Real-time safe.
    @inlinable @_noAllocation @_noLocks
    public mutating func reset() {
        clearFreeverbTank()
        plate.pointee.clear()
        fadesOutOtherTank = false
    }

    @inlinable @_noAllocation @_noLocks
    mutating func clearFreeverbTank() {
        for number in 0..<(2 * Reverb.combCount) { combs[number].clear() }
        for number in 0..<(2 * Reverb.allPassCount) { allPasses[number].line.clear() }
    }

    /// Applies `preset`'s tank, decay and damping (the mix is left alone). Switching between the
    /// plate and the Freeverb rooms starts the new tank from silence and fades the old one's tail
    /// out across the next block.
    /// - Thread: audio. Real-time safe (both tanks are allocated at init).
    @inlinable @_noAllocation @_noLocks
    public mutating func setPreset(_ preset: ReverbPreset) {
        let plateWanted: Bool
        switch preset {
        case .plate: plateWanted = true
        case .smallRoom, .mediumRoom, .largeHall: plateWanted = false
        }
        if plateWanted != usesPlate {
            usesPlate = plateWanted
            if fadesOutOtherTank {
                // Switched back before any block ran: the tank returned to still holds its tail.
                fadesOutOtherTank = false
            } else {
                if plateWanted { plate.pointee.clear() } else { clearFreeverbTank() }
                fadesOutOtherTank = true
            }
        }
        setDamping(preset.damping)
        setDecay(seconds: preset.lowFrequencyRT60Seconds)
    }

    /// Sets the wet/dry mix, 0 (dry only) … 100 % (wet only), reached across the next block.
    /// - Thread: audio. Real-time safe.
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
    /// (by about 10–15 % at the rooms' damping, 4 % at the plate's). Sets both tanks.
    /// - Thread: audio. Real-time safe.
    @inlinable @_noAllocation @_noLocks
    public mutating func setDecay(seconds: Double) {
        let rt60 = min(max(seconds, 0.05), 60)
        currentRT60Seconds = rt60
        // g = 10^(−3·L/(RT60·fs)) = 2^(−3·log2(10)·L/(RT60·fs)).
        let exponentPerSample = Float(-3 * 3.321_928_094_887_362 / (rt60 * sampleRate))
        var energy: Float = 0
        for number in 0..<(2 * Reverb.combCount) {
            let g = fastExp2(exponentPerSample * Float(combs[number].line.length))
            combs[number].feedback = g
            energy += 1 / (1 - g * g)  // a comb's energy gain for white input
        }
        // Normalise so the 8 combs of one channel give about unity energy gain together.
        // (√ via exp2/log2: `squareRoot()` is an opaque call to the real-time checker.)
        inputGain = fastExp2(0.5 * log2Approximation(2 / energy))
        plate.pointee.setDecay(seconds: rt60, sampleRate: sampleRate)
    }

    /// Sets Freeverb's room size knob, 0…1: the decay its feedback 0.7 + 0.28·size would give the
    /// average comb (0 → 0.6 s, 0.5 → 1.2 s, 1 → 10.7 s), in either tank.
    /// - Thread: audio. Real-time safe.
    @inlinable @_noAllocation @_noLocks
    public mutating func setRoomSize(_ size: Float) {
        let feedback = 0.7 + 0.28 * min(max(size, 0), 1)
        let averageLengthSeconds: Float = 1_378 / 44_100
        // RT60 = −3·L / log10(g) = −3·L·log2(10) / log2(g).
        setDecay(seconds: Double(-3 * averageLengthSeconds * 3.321_928_1 / log2Approximation(feedback)))
    }

    /// Sets high-frequency damping, 0 (none) … 1 (strongest: Freeverb's 0.4 pole at 44.1 kHz), in
    /// both tanks.
    /// - Thread: audio. Real-time safe.
    @inlinable @_noAllocation @_noLocks
    public mutating func setDamping(_ amount: Float) {
        let clamped = min(max(amount, 0), 1)
        currentDamping = clamped
        // The pole p at 44.1 kHz, moved to this rate keeping its time constant: p^(44100/fs).
        let pole = clamped * 0.4
        let d = pole <= 0 ? 0 : fastExp2(log2Approximation(pole) * Float(44_100 / sampleRate))
        for number in 0..<(2 * Reverb.combCount) { combs[number].damping = d }
        // The plate's damping low-pass has the combs' form, so it takes the same pole (it runs
        // only twice per trip round its much longer loop, so the same pole damps it less).
        plate.pointee.damping = d
    }

    /// Runs one tank over the mono input `mono` (left intact), writing its wet output.
    @inlinable @_noAllocation @_noLocks
    mutating func processTank(plate usePlate: Bool, mono: UnsafePointer<Float>, left wetLeft: UnsafeMutablePointer<Float>, right wetRight: UnsafeMutablePointer<Float>, frameCount: Int) {
        let input = scratch + maxFrameCount
        let gain = usePlate ? plate.pointee.inputGain : inputGain
        for frame in 0..<frameCount {
            input[frame] = mono[frame] * gain + Reverb.antiDenormal
        }
        if usePlate {
            plate.pointee.process(input, left: wetLeft, right: wetRight, frameCount: frameCount)
            return
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
    }

    /// Reverberates `frameCount` frames of `left` and `right` in place.
    /// - Thread: audio. Real-time safe.
    @inlinable @_noAllocation @_noLocks
    public mutating func process(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, frameCount: Int) {
        var done = 0
        while done < frameCount {
            let count = min(frameCount - done, maxFrameCount)
            processBlock(left: left + done, right: right + done, frameCount: count)
            done += count
        }
    }

    /// Reverberates the mono send `input` (left intact) and adds the wet output, times `level`,
    /// into `left` and `right`: the effects-bus use, where the dry signal goes elsewhere and the
    /// mix knob plays no part.
    /// - Thread: audio. Real-time safe.
    @inlinable @_noAllocation @_noLocks
    public mutating func processSend(_ input: UnsafePointer<Float>, addingTo left: UnsafeMutablePointer<Float>,
                                     right: UnsafeMutablePointer<Float>, level: Float, frameCount: Int) {
        var done = 0
        while done < frameCount {
            let count = min(frameCount - done, maxFrameCount)
            let (wetLeft, wetRight) = wet(mono: input + done, frameCount: count)
            for frame in 0..<count {
                left[done + frame] += wetLeft[frame] * level
                right[done + frame] += wetRight[frame] * level
            }
            done += count
        }
    }

    /// Runs the tank (and, after a switch of tank, the old one fading out) over `mono` and returns
    /// where the wet left and right are, in scratch.
    @inlinable @_noAllocation @_noLocks
    mutating func wet(mono: UnsafePointer<Float>, frameCount: Int) -> (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>) {
        let wetLeft = scratch + 2 * maxFrameCount, wetRight = scratch + 3 * maxFrameCount
        processTank(plate: usesPlate, mono: mono, left: wetLeft, right: wetRight, frameCount: frameCount)
        if fadesOutOtherTank {
            fadesOutOtherTank = false
            let oldLeft = scratch + 4 * maxFrameCount, oldRight = scratch + 5 * maxFrameCount
            processTank(plate: !usesPlate, mono: mono, left: oldLeft, right: oldRight, frameCount: frameCount)
            let step = 1 / Float(frameCount)
            for frame in 0..<frameCount {
                let fadeIn = Float(frame + 1) * step, fadeOut = 1 - fadeIn
                wetLeft[frame] = wetLeft[frame] * fadeIn + oldLeft[frame] * fadeOut
                wetRight[frame] = wetRight[frame] * fadeIn + oldRight[frame] * fadeOut
            }
        }
        return (wetLeft, wetRight)
    }

    @inlinable @_noAllocation @_noLocks
    mutating func processBlock(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, frameCount: Int) {
        let mono = scratch
        for frame in 0..<frameCount {
            mono[frame] = (left[frame] + right[frame]) * 0.5
        }
        let (wetLeft, wetRight) = wet(mono: mono, frameCount: frameCount)
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
