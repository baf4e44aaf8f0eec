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

/// sin(2π·turns) for turns in 0..<1 in single precision, to better than 1e-6: what a control-rate
/// LFO needs, at a third of `sineOfTurns`' cost (a polynomial to a⁹, in `Float`). Every flex LFO
/// calls it every block, at phases that differ from voice to voice, so it has no branch to
/// mispredict and its series is evaluated in independent pairs.
/// - Thread: any.
@inlinable @inline(__always) @_noAllocation @_noLocks
public func fastSineOfTurns(_ turns: Float) -> Float {
    // sin(2πx) = -sin(2π(x - ½)); sin is odd, and sin(π - a) = sin(a) folds the quarter beyond ¼
    // turn back in: the series runs on 0…¼ turn and the sign is put back with one bit.
    let centred = turns - 0.5
    let magnitude = abs(centred)
    let a = 2 * Float.pi * min(magnitude, 0.5 - magnitude)
    let a2 = a * a, a4 = a2 * a2
    // An odd polynomial to a⁹ fitted to sin on 0…π/2 (least squares on Chebyshev nodes): within
    // 1e-7 of it, where the Taylor series to the same degree is 3.6e-6 off at the quarter turn.
    let series = a * ((0.999_999_98 + a2 * -0.166_666_50) + a4 * ((0.008_332_927 + a2 * -0.000_198_022_5) + a4 * 0.000_002_592_806))
    // -sign(centred) · series.
    return Float(bitPattern: series.bitPattern ^ (centred.bitPattern & 0x8000_0000) ^ 0x8000_0000)
}

/// sin(2π·turns) for turns in 0..<1, to better than 1e-7, in pure Swift: libm's `sin` is an opaque
/// call the real-time checker cannot see into, and this is faster for the range an oscillator uses.
/// - Thread: any.
@inlinable @inline(__always) @_noAllocation @_noLocks
public func sineOfTurns(_ turns: Double) -> Double { sineOfTurnsLanes(SIMD2(repeating: turns))[0] }

/// cos(2π·turns) for turns in 0..<1: `sineOfTurns` a quarter turn on.
/// - Thread: any.
@inlinable @inline(__always) @_noAllocation @_noLocks
public func cosineOfTurns(_ turns: Double) -> Double { cosineOfTurnsLanes(SIMD2(repeating: turns))[0] }

/// The angle of (x, y) in turns, −½ … ½ (atan2 / 2π), without libm: folded to |t| ≤ tan 15°,
/// where the arctangent's series converges fast (its 13th-order term is below 3e-9).
/// - Thread: any.
@inlinable @_noAllocation @_noLocks
public func angleInTurns(x: Double, y: Double) -> Double {
    let ax = abs(x), ay = abs(y)
    guard ax > 0 || ay > 0 else { return 0 }
    // atan of the smaller over the larger, in 0 … π/4.
    let swapped = ay > ax
    var t = swapped ? ax / ay : ay / ax
    var offset = 0.0
    let tan15 = 0.267_949_192_431_122_7, root3 = 1.732_050_807_568_877_2
    if t > tan15 {
        // atan t = π/6 + atan((√3·t − 1)/(t + √3))
        t = (root3 * t - 1) / (t + root3)
        offset = Double.pi / 6
    }
    let t2 = t * t
    var angle = offset + t * (1 - t2 * (1.0 / 3 - t2 * (1.0 / 5 - t2 * (1.0 / 7 - t2 * (1.0 / 9 - t2 / 11)))))
    if swapped { angle = Double.pi / 2 - angle }
    if x < 0 { angle = Double.pi - angle }
    if y < 0 { angle = -angle }
    return angle / (2 * Double.pi)
}

/// `cosineOfTurns` of eight values at once.
/// - Thread: any.
@inlinable @inline(__always) @_noAllocation @_noLocks
public func cosineOfTurns(_ turns: SIMD8<Double>) -> SIMD8<Double> { cosineOfTurnsLanes(turns) }

/// cos(2π·turns) in each lane: the sine a quarter turn on, brought back into 0..<1.
/// - Thread: any.
@inlinable @inline(__always)
public func cosineOfTurnsLanes<Lanes: SIMD>(_ turns: Lanes) -> Lanes where Lanes.Scalar == Double, Lanes.MaskStorage.Scalar == Int64 {
    // A quarter turn on, less a turn where that reaches 1: a loop over the lanes' bytes, which
    // the optimiser turns into vector instructions (as `lanewiseMinimum` is written), where a
    // mask's `replacing` is a call that visits the lanes one at a time.
    var pair: (quarterOn: Lanes, wrapped: Lanes) = (turns + 0.25, turns - 0.75)
    let stride = MemoryLayout<Double>.stride, second = MemoryLayout<Lanes>.stride
    withUnsafeMutableBytes(of: &pair) { lanes in
        for lane in 0..<Lanes.scalarCount where lanes.load(fromByteOffset: lane * stride, as: Double.self) >= 1 {
            lanes.storeBytes(of: lanes.load(fromByteOffset: second + lane * stride, as: Double.self), toByteOffset: lane * stride, as: Double.self)
        }
    }
    return sineOfTurnsLanes(pair.quarterOn)
}

/// `sineOfTurns` of eight values at once: eight voices' filters are set together.
/// - Thread: any.
@inlinable @inline(__always) @_noAllocation @_noLocks
public func sineOfTurns(_ turns: SIMD8<Double>) -> SIMD8<Double> { sineOfTurnsLanes(turns) }

/// sin(2π·turns) in each lane, the one implementation of `sineOfTurns` (a single value runs in a
/// two-lane vector, narrowed to scalar instructions, so every way of calling it gives the same
/// bits). Folded without a branch and evaluated in independent pairs: a moving filter sets its
/// coefficients from two of these every block. (Generic, so the real-time attributes are its
/// callers'.)
/// - Thread: any.
@inlinable @inline(__always)
public func sineOfTurnsLanes<Lanes: SIMD>(_ turns: Lanes) -> Lanes where Lanes.Scalar == Double, Lanes.MaskStorage.Scalar == Int64 {
    // sin(2πx) = -sin(2π(x - ½)); sin is odd, and sin(π - a) = sin(a) folds the quarter beyond ¼
    // turn back in: the series runs on 0…¼ turn and the sign is put back with one bit.
    let signBit = Lanes.MaskStorage(repeating: .min)
    let centred: Lanes = turns - 0.5
    let magnitude = unsafeBitCast(unsafeBitCast(centred, to: Lanes.MaskStorage.self) & ~signBit, to: Lanes.self)
    let half = Lanes(repeating: 0.5)
    let folded: Lanes = lanewiseMinimum(magnitude, half - magnitude)
    let a: Lanes = (2 * Double.pi) * folded
    let a2: Lanes = a * a, a4: Lanes = a2 * a2, a8: Lanes = a4 * a4
    // Terms to a¹³: the first omitted term is below (π/2)¹⁵/15! ≈ 6e-10.
    let c3: Double = -1.0 / 6, c5: Double = 1.0 / 120, c7: Double = -1.0 / 5_040
    let c9: Double = 1.0 / 362_880, c11: Double = -1.0 / 39_916_800, c13: Double = 1.0 / 6_227_020_800
    let lowFirst: Lanes = 1 + a2 * c3
    let lowSecond: Lanes = c5 + a2 * c7
    let low: Lanes = lowFirst + a4 * lowSecond
    let highFirst: Lanes = c9 + a2 * c11
    let high: Lanes = highFirst + a4 * c13
    let series: Lanes = a * (low + a8 * high)
    let sign = (unsafeBitCast(centred, to: Lanes.MaskStorage.self) & signBit) ^ signBit
    return unsafeBitCast(unsafeBitCast(series, to: Lanes.MaskStorage.self) ^ sign, to: Lanes.self)
}

/// The lesser of `a` and `b` in each lane, as `pointwiseMin` gives it, bit for bit, written as
/// `lanewiseClamp` is (FastMath.swift) and for the same reason: the filter sines took a third of
/// their time in the standard library's call.
@usableFromInline @_transparent
func lanewiseMinimum<Lanes: SIMD>(_ a: Lanes, _ b: Lanes) -> Lanes where Lanes.Scalar: FloatingPoint {
    // Both in one buffer: `b`'s lanes a vector's stride after `a`'s.
    var pair = (a, b)
    let stride = MemoryLayout<Lanes.Scalar>.stride, second = MemoryLayout<Lanes>.stride
    withUnsafeMutableBytes(of: &pair) { lanes in
        for lane in 0..<Lanes.scalarCount {
            let own = lanes.load(fromByteOffset: lane * stride, as: Lanes.Scalar.self)
            let other = lanes.load(fromByteOffset: second + lane * stride, as: Lanes.Scalar.self)
            lanes.storeBytes(of: min(own, other), toByteOffset: lane * stride, as: Lanes.Scalar.self)
        }
    }
    return pair.0
}
