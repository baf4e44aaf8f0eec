/// A DAHDSR envelope, stepped a block of frames at a time.
///
/// Shapes follow SoundFont 2 and FluidSynth: the attack rises linearly in amplitude; decay and
/// release move linearly in decibels (exponentially in amplitude) — for the volume envelope the
/// decay time is the time for a full 100 dB fall, so decaying to a sustain 20 dB down takes a fifth
/// of it. The modulation envelope (`isLinear`) moves linearly in every stage.
///
/// Values: the output is 0…1 (amplitude for a volume envelope, depth for a modulation envelope).
/// Stage changes are computed when a stage starts; stepping a block costs a few multiplies.
public struct EnvelopeGenerator: Sendable {
    public enum Stage: UInt8, Sendable { case delay, attack, hold, decay, sustain, release, finished }

    @usableFromInline var stage: Stage = .finished
    @usableFromInline var value: Float = 0
    /// The current stage.
    /// - Thread: audio.
    @inlinable public var currentStage: Stage { stage }
    /// The value of the last frame.
    /// - Thread: audio.
    @inlinable public var currentValue: Float { value }
    @usableFromInline var framesLeft = 0
    @usableFromInline var step: Float = 0   // per-frame add (linear) or multiply (exponential)
    /// `step` compounded over a whole control block (64 frames), so the common case of stepping one
    /// full block costs one multiply.
    @usableFromInline var blockStep: Float = 1
    @usableFromInline var isExponential = false

    // Stage lengths in frames and the sustain level, fixed at note-on.
    @usableFromInline var delayFrames = 0
    @usableFromInline var attackFrames = 0
    @usableFromInline var holdFrames = 0
    @usableFromInline var decaySeconds: Double = 0
    @usableFromInline var releaseSeconds: Double = 0
    @usableFromInline var sustainLevel: Float = 1
    @usableFromInline var sampleRate: Double = 48_000
    @usableFromInline let isLinear: Bool

    /// The level below which an exponential stage counts as silent: -100 dB.
    @inlinable static var floor: Float { 1e-5 }

    /// - Thread: any.
    public init(linear: Bool) { isLinear = linear }

    /// Starts the envelope from zero. Times in seconds; `sustainLevel` 0…1.
    /// - Thread: audio.
    @inlinable @_noAllocation @_noLocks
    public mutating func start(delay: Double, attack: Double, hold: Double, decay: Double,
                               sustainLevel: Double, release: Double, sampleRate: Double) {
        self.sampleRate = sampleRate
        delayFrames = Int(delay * sampleRate)
        attackFrames = Int(attack * sampleRate)
        holdFrames = Int(hold * sampleRate)
        decaySeconds = decay
        releaseSeconds = release
        self.sustainLevel = Float(min(max(sustainLevel, 0), 1))
        value = 0
        enter(.delay)
    }

    /// Moves to the release stage from wherever the envelope is.
    /// - Thread: audio.
    @inlinable @_noAllocation @_noLocks
    public mutating func release() {
        guard stage != .release && stage != .finished else { return }
        enter(.release)
    }

    /// Releases over `seconds` regardless of the programmed release (voice stealing, all sound off).
    /// - Thread: audio.
    @inlinable @_noAllocation @_noLocks
    public mutating func fastRelease(seconds: Double) {
        guard stage != .finished else { return }
        releaseSeconds = min(releaseSeconds, seconds)
        stage = .sustain  // so enter(.release) recomputes from the current value
        enter(.release)
    }

    /// True once the envelope has finished (the voice can be freed).
    /// - Thread: audio.
    @inlinable public var isFinished: Bool { stage == .finished }

    /// Advances `frameCount` frames at once and returns the value at the end. Voices evaluate their
    /// envelopes at control rate and ramp between the values, so this is the only stepping call.
    /// Inlined: it runs for every voice every block, and the call costs as much as a block's step.
    /// - Thread: audio.
    @inlinable @inline(__always) @_noAllocation @_noLocks
    public mutating func advance(by frameCount: Int) -> Float {
        var remaining = frameCount
        while remaining > 0 {
            if framesLeft == 0 {
                advanceStage()
                if stage == .sustain || stage == .finished { return value }
                continue
            }
            let count = min(remaining, framesLeft)
            if isExponential && count == 64 {
                value *= blockStep
            } else if isExponential {
                var factor: Float = 1
                var base = step
                var n = count
                while n > 0 { if n & 1 == 1 { factor *= base }; base *= base; n >>= 1 }
                value *= factor
            } else {
                value += step * Float(count)
            }
            framesLeft -= count
            remaining -= count
        }
        return value
    }

    @inlinable @_noAllocation @_noLocks
    mutating func advanceStage() {
        switch stage {
        case .delay: enter(.attack)
        case .attack: value = 1; enter(.hold)
        case .hold: enter(.decay)
        case .decay: value = sustainLevel; enter(.sustain)
        case .release: value = 0; stage = .finished
        case .sustain, .finished: break
        }
    }

    @inlinable @_noAllocation @_noLocks
    mutating func enter(_ newStage: Stage) {
        stage = newStage
        isExponential = false
        step = 0
        switch newStage {
        case .delay:
            framesLeft = delayFrames
        case .attack:
            framesLeft = attackFrames
            step = attackFrames > 0 ? (1 - value) / Float(attackFrames) : 0
            if attackFrames == 0 { value = 1 }
        case .hold:
            framesLeft = holdFrames
        case .decay:
            framesLeft = ramp(from: value, to: sustainLevel, fullScaleSeconds: decaySeconds)
            if framesLeft == 0 { value = sustainLevel }
        case .sustain:
            framesLeft = 0
            if sustainLevel <= 0 { value = 0; stage = .finished }
        case .release:
            framesLeft = ramp(from: value, to: 0, fullScaleSeconds: releaseSeconds)
            if framesLeft == 0 { value = 0; stage = .finished }
        case .finished:
            framesLeft = 0
        }
    }

    /// Sets `step` for a move from `from` to `to` and returns its length in frames. Linear
    /// envelopes take `fullScaleSeconds × |to − from|`; exponential ones move at 100 dB per
    /// `fullScaleSeconds` and stop at -100 dB when heading to zero.
    @inlinable @_noAllocation @_noLocks
    mutating func ramp(from: Float, to: Float, fullScaleSeconds: Double) -> Int {
        if isLinear {
            let frames = Int(fullScaleSeconds * Double(abs(to - from)) * sampleRate)
            step = frames > 0 ? (to - from) / Float(frames) : 0
            return frames
        }
        let start = max(from, Self.floor)
        let target = max(to, Self.floor)
        guard start > target else { return 0 }
        // Decibels to fall, as a fraction of 100 dB, sets the duration.
        let decibels = 20 * (log2Approximation(start) - log2Approximation(target)) * 0.301_029_995
        let frames = Int(fullScaleSeconds * Double(decibels / 100) * sampleRate)
        guard frames > 0 else { return 0 }
        isExponential = true
        let stepLog2 = (log2Approximation(target) - log2Approximation(start)) / Float(frames)
        step = fastExp2(stepLog2)
        blockStep = fastExp2(stepLog2 * 64)
        return frames
    }
}

/// log2(x) for x > 0, to about 2e-5: enough for envelope durations and levels.
/// - Thread: any.
@inlinable @_noAllocation @_noLocks
public func log2Approximation(_ x: Float) -> Float {
    let bits = x.bitPattern
    let exponent = Float(Int32((bits >> 23) & 0xff) - 127)
    let mantissa = Float(bitPattern: (bits & 0x007f_ffff) | 0x3f80_0000)  // 1 ..< 2
    // ln(m) = 2·atanh(y) with y = (m−1)/(m+1) in [0, 1/3): the odd series converges fast there.
    let y = (mantissa - 1) / (mantissa + 1)
    let y2 = y * y
    let ln = 2 * y * (1 + y2 * (1.0 / 3 + y2 * (1.0 / 5 + y2 * (1.0 / 7 + y2 / 9))))
    return exponent + ln * 1.442_695_04
}
