/// A resonant two-pole low-pass (RBJ Audio EQ Cookbook biquad in transposed direct form II), as
/// SoundFont voices use it. Coefficients are recomputed at control rate when the cutoff moves;
/// the state carries across, so a change never resets the filter.
public struct LowPassFilter: Sendable {
    @usableFromInline var b0: Float = 1, b1: Float = 0, b2: Float = 0, a1: Float = 0, a2: Float = 0
    @usableFromInline var z1: Float = 0, z2: Float = 0
    @usableFromInline var lastCutoff: Float = -1
    @usableFromInline var lastQ: Float = -1

    public init() {}

    /// Clears the state (a new note).
    @inlinable @_noAllocation @_noLocks
    public mutating func reset() {
        z1 = 0
        z2 = 0
        lastCutoff = -1
    }

    /// Sets cutoff (Hz) and Q (linear); cheap when nothing changed.
    @inlinable @_noAllocation @_noLocks
    public mutating func set(cutoff: Float, q: Float, sampleRate: Float) {
        let clampedCutoff = min(max(cutoff, 5), sampleRate * 0.45)
        guard clampedCutoff != lastCutoff || q != lastQ else { return }
        lastCutoff = clampedCutoff
        lastQ = q
        let turns = Double(clampedCutoff / sampleRate)
        let sine = Float(sineOfTurns(turns))
        let cosine = Float(sineOfTurns(turns + 0.25 < 1 ? turns + 0.25 : turns - 0.75))
        let alpha = sine / (2 * max(q, 0.01))
        let a0 = 1 + alpha
        let oneMinusCos = 1 - cosine
        b0 = oneMinusCos * 0.5 / a0
        b1 = oneMinusCos / a0
        b2 = b0
        a1 = -2 * cosine / a0
        a2 = (1 - alpha) / a0
    }

    /// Filters one sample.
    @inlinable @_noAllocation @_noLocks
    public mutating func process(_ input: Float) -> Float {
        let output = b0 * input + z1
        z1 = b1 * input - a1 * output + z2
        z2 = b2 * input - a2 * output
        return output
    }

    /// Flushes state that has decayed into the denormal range, which would slow the CPU to a crawl.
    @inlinable @_noAllocation @_noLocks
    public mutating func flushDenormals() {
        if abs(z1) < 1e-20 { z1 = 0 }
        if abs(z2) < 1e-20 { z2 = 0 }
    }
}
