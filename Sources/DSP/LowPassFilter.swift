/// A resonant two-pole low-pass (RBJ Audio EQ Cookbook biquad in transposed direct form II), as
/// SoundFont voices use it: the coefficients and state of one voice's filter. Coefficients are
/// recomputed at control rate when the cutoff moves; the state carries across, so a change never
/// resets the filter. Voices are filtered four at a time by `LowPassFilterQuad`.
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

    /// Flushes state that has decayed into the denormal range, which would slow the CPU to a crawl.
    @inlinable @_noAllocation @_noLocks
    public mutating func flushDenormals() {
        if abs(z1) < 1e-20 { z1 = 0 }
        if abs(z2) < 1e-20 { z2 = 0 }
    }
}

/// Four `LowPassFilter`s run side by side in SIMD lanes, one voice per lane. A biquad's cost is
/// the latency of its feedback chain, not its arithmetic; four independent chains fill the time one
/// chain spends waiting, so four voices filter for about the price of one.
public struct LowPassFilterQuad: Sendable {
    @usableFromInline var b0 = SIMD4<Float>(repeating: 1), b1 = SIMD4<Float>(), b2 = SIMD4<Float>()
    @usableFromInline var a1 = SIMD4<Float>(), a2 = SIMD4<Float>()
    @usableFromInline var z1 = SIMD4<Float>(), z2 = SIMD4<Float>()

    /// Every lane passes its input through unchanged until `load` gives it a filter.
    @inlinable @_noAllocation @_noLocks
    public init() {}

    /// Puts `filter`'s coefficients and state into `lane`.
    @inlinable @_noAllocation @_noLocks
    public mutating func load(lane: Int, from filter: LowPassFilter) {
        b0[lane] = filter.b0; b1[lane] = filter.b1; b2[lane] = filter.b2
        a1[lane] = filter.a1; a2[lane] = filter.a2
        z1[lane] = filter.z1; z2[lane] = filter.z2
    }

    /// Writes `lane`'s state back to `filter`, flushing denormals.
    @inlinable @_noAllocation @_noLocks
    public func store(lane: Int, into filter: inout LowPassFilter) {
        filter.z1 = z1[lane]
        filter.z2 = z2[lane]
        filter.flushDenormals()
    }

    /// Filters `count` frames of four interleaved lanes in place.
    @inlinable @_noAllocation @_noLocks
    public mutating func process(_ frames: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
        var state1 = z1, state2 = z2
        for index in 0..<count {
            let input = frames[index]
            let output = b0 * input + state1
            state1 = b1 * input - a1 * output + state2
            state2 = b2 * input - a2 * output
            frames[index] = output
        }
        z1 = state1
        z2 = state2
    }
}
