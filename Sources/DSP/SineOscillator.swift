/// A sine generator with a phase accumulator in double precision, so that pitch stays exact over
/// hours: a `Float` phase drifts audibly (by cents) after a few minutes at high frequencies.
public struct SineOscillator: Sendable {
    /// Phase in turns, 0..<1.
    @usableFromInline var phase: Double = 0
    @usableFromInline var phaseIncrement: Double = 0

    /// - Thread: any.
    public init() {}

    /// Sets the frequency; phase is kept, so a change is continuous (no click).
    /// - Thread: audio.
    @inlinable @_noAllocation @_noLocks
    public mutating func setFrequency(_ hertz: Double, sampleRate: Double) {
        phaseIncrement = hertz / sampleRate
    }

    /// Restarts at phase 0, where the sine is 0: a start from silence without a step.
    /// - Thread: audio.
    @inlinable @_noAllocation @_noLocks
    public mutating func resetPhase() { phase = 0 }

    /// The next sample.
    /// - Thread: audio.
    @inlinable @_noAllocation @_noLocks
    public mutating func next() -> Float {
        let value = Float(sineOfTurns(phase))
        phase += phaseIncrement
        if phase >= 1 { phase -= 1 }
        return value
    }
}

/// sin(2π·turns) for turns in 0..<1 in single precision, to better than 1e-5: what a control-rate
/// LFO needs, at a third of `sineOfTurns`' cost (the series to a⁹, in `Float`).
/// - Thread: any.
@inlinable @_noAllocation @_noLocks
public func fastSineOfTurns(_ turns: Float) -> Float {
    var t = turns - 0.5
    if t > 0.25 { t = 0.5 - t } else if t < -0.25 { t = -0.5 - t }
    let a = 2 * Float.pi * t
    let a2 = a * a
    // The first omitted term is below (π/2)¹¹/11! ≈ 3.6e-6.
    let series = a * (1 + a2 * (-1.0 / 6 + a2 * (1.0 / 120 + a2 * (-1.0 / 5_040 + a2 * (1.0 / 362_880)))))
    return -series
}

/// sin(2π·turns) for turns in 0..<1, to better than 1e-7, in pure Swift: libm's `sin` is an opaque
/// call the real-time checker cannot see into, and this is faster for the range an oscillator uses.
/// - Thread: any.
@inlinable @_noAllocation @_noLocks
public func sineOfTurns(_ turns: Double) -> Double {
    // Fold to one half-period around 0, where sin is odd and a short Taylor series converges fast:
    // sin(2πx) = -sin(2π(x - ½)), and sin(π - a) = sin(a) folds the quarter beyond ±¼ turn back in.
    var t = turns - 0.5
    if t > 0.25 { t = 0.5 - t } else if t < -0.25 { t = -0.5 - t }
    let a = 2 * Double.pi * t
    let a2 = a * a
    // Terms to a¹³: the first omitted term is below (π/2)¹⁵/15! ≈ 6e-10.
    let series = a * (1 + a2 * (-1.0 / 6 + a2 * (1.0 / 120 + a2 * (-1.0 / 5_040 + a2 * (1.0 / 362_880
        + a2 * (-1.0 / 39_916_800 + a2 * (1.0 / 6_227_020_800)))))))
    return -series
}
