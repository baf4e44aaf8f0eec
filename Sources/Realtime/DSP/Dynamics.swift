/// A gain in decibels, smoothed: the control thread sets a target, the audio thread ramps to it
/// over `rampFrameCount` frames, so a boost knob never zippers.
public struct GainStage: Sendable {
    @usableFromInline var gain: SmoothedValue

    /// - Parameter rampFrameCount: frames a change takes (e.g. 10 ms worth).
    /// - Thread: any.
    public init(decibels: Float = 0, rampFrameCount: Int) {
        gain = SmoothedValue(decibelsToAmplitude(decibels), rampFrameCount: rampFrameCount)
    }

    /// Starts a move to `decibels`.
    /// - Thread: audio.
    @inlinable @_noAllocation @_noLocks
    public mutating func set(decibels: Float) { gain.move(to: decibelsToAmplitude(decibels)) }

    /// Applies the gain to a stereo pair of buffers in place.
    /// - Thread: audio.
    @inlinable @_noAllocation @_noLocks
    public mutating func process(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, frameCount: Int) {
        for frame in 0..<frameCount {
            let value = gain.next()
            left[frame] *= value
            right[frame] *= value
        }
    }
}

/// Removes DC and sub-sonic drift (a one-pole high-pass at about 20 Hz): a microphone's offset
/// must not eat the limiter's headroom or thump when the gain changes.
public struct DCBlocker: Sendable {
    @usableFromInline var previousInput: Float = 0
    @usableFromInline var previousOutput: Float = 0
    @usableFromInline let pole: Float

    /// - Parameter cornerHertz: where the response is 3 dB down.
    /// - Thread: any.
    public init(sampleRate: Double, cornerHertz: Double = 20) {
        pole = Float(1 - 2 * Double.pi * cornerHertz / sampleRate)
    }

    /// The filter as a biquad, (1 − z⁻¹) / (1 − pole·z⁻¹), for its frequency response.
    /// - Thread: any.
    public var coefficients: BiquadCoefficients { BiquadCoefficients(b0: 1, b1: -1, b2: 0, a1: -pole, a2: 0) }

    /// - Thread: audio.
    @inlinable @_noAllocation @_noLocks
    public mutating func process(_ samples: UnsafeMutablePointer<Float>, frameCount: Int, stride: Int = 1) {
        var input1 = previousInput, output1 = previousOutput
        for frame in 0..<frameCount {
            let input = samples[frame * stride]
            let output = input - input1 + pole * output1
            input1 = input
            output1 = abs(output) < 1e-20 ? 0 : output
            samples[frame * stride] = output1
        }
        previousInput = input1
        previousOutput = output1
    }
}

/// The output safety limiter: a stereo-linked peak limiter with instant attack, so no sample ever
/// leaves above the ceiling (default -1 dBFS), and a smooth exponential release. On by default in
/// the graph: a feedback burst or a +24 dB boost must never reach the speaker at full scale.
public struct SafetyLimiter: Sendable {
    @usableFromInline var gain: Float = 1
    @usableFromInline let ceiling: Float
    @usableFromInline let releaseCoefficient: Float
    @usableFromInline var deepest: Float = 1
    @usableFromInline var reducedFrames = 0
    /// The lowest gain applied since the last `resetReduction()`, for meters and tests.
    /// - Thread: audio.
    public var deepestGain: Float { @inlinable @_noAllocation @_noLocks get { deepest } }
    /// Frames the limiter turned down by more than `engagedBelowGain` (0.01 dB) since the last
    /// `resetReduction()`: how much of a render it shaped. (Its release approaches unity without
    /// reaching it in floating point, so "below 1" would count on for ever.)
    /// - Thread: audio.
    public var reducedFrameCount: Int { @inlinable @_noAllocation @_noLocks get { reducedFrames } }
    /// - Thread: any.
    @inlinable public static var engagedBelowGain: Float { @_noAllocation @_noLocks get { 0.998_849 } }

    /// - Parameters:
    ///   - ceilingDecibels: the highest output level, in dBFS.
    ///   - releaseSeconds: time constant for the gain to recover after a peak.
    /// - Thread: any.
    public init(sampleRate: Double, ceilingDecibels: Float = -1, releaseSeconds: Double = 0.05) {
        ceiling = decibelsToAmplitude(ceilingDecibels)
        // Per-frame approach to unity: after `releaseSeconds` the remaining reduction is 1/e.
        releaseCoefficient = 1 - fastExp2(Float(-1.442_695 / (releaseSeconds * sampleRate)))
    }

    /// - Thread: audio.
    @inlinable @_noAllocation @_noLocks
    public mutating func process(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, frameCount: Int) {
        var current = gain
        var lowest = deepest
        var reduced = 0
        for frame in 0..<frameCount {
            let peak = max(abs(left[frame]), abs(right[frame]))
            // Recover towards unity, then clamp at once if this sample would still be too loud.
            current += (1 - current) * releaseCoefficient
            if peak * current > ceiling { current = ceiling / peak }
            lowest = min(lowest, current)
            if current < Self.engagedBelowGain { reduced += 1 }
            left[frame] *= current
            right[frame] *= current
        }
        gain = current
        deepest = lowest
        reducedFrames += reduced
    }

    /// Starts a new measurement of `deepestGain`.
    /// - Thread: audio. The thread that owns the limiter; real-time safe.
    public mutating func resetReduction() { deepest = 1; reducedFrames = 0 }
}
