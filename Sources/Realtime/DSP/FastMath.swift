// Exponentials for the audio thread. libm's exp2/pow are opaque calls the real-time checker
// rejects, and they are slower than we need: these are pure Swift and branch-light. The Float
// version is accurate to about 1.5e-6 relative (0.00001 dB, 0.003 cents), the Double one to 1e-12:
// far below what any pitch or level calculation here can hear.

/// 2^x for |x| < 126. A voice whose level or cutoff moves needs it every block: like the Double
/// one, it is computed by `exp2Lanes`.
/// - Thread: any.
@inlinable @inline(__always) @_noAllocation @_noLocks
public func fastExp2(_ x: Float) -> Float { exp2Lanes(SIMD2(repeating: x))[0] }

/// 2^x in double precision for |x| < 1000, for phase increments where Float is not enough.
/// - Thread: any.
@inlinable @inline(__always) @_noAllocation @_noLocks
public func fastExp2(_ x: Double) -> Double { exp2Lanes(SIMD2(repeating: x))[0] }

/// `fastExp2` of eight values at once: a group's voices compute theirs together.
/// - Thread: any.
@inlinable @inline(__always) @_noAllocation @_noLocks
public func fastExp2(_ x: SIMD8<Double>) -> SIMD8<Double> { exp2Lanes(x) }

/// `fastExp2` of eight values at once.
/// - Thread: any.
@inlinable @inline(__always) @_noAllocation @_noLocks
public func fastExp2(_ x: SIMD8<Float>) -> SIMD8<Float> { exp2Lanes(x) }

/// 2^x in each lane, the one implementation of the Double exponential: a single value runs in a
/// two-lane vector, which the compiler narrows to scalar instructions, so that a voice's pitch is
/// the same bits whether its group computed it or it was computed alone. Written for latency, as
/// a moving voice needs it every block: no conversion instructions, no division, and the series
/// in independent pairs. (Generic, so it cannot carry the real-time attributes itself; every
/// caller does, and is checked with it inlined.)
/// - Thread: any.
@inlinable @inline(__always)
public func exp2Lanes<Lanes: SIMD>(_ x: Lanes) -> Lanes where Lanes.Scalar == Double, Lanes.MaskStorage.Scalar == Int64 {
    let clamped = lanewiseClamp(x, -1_000, 1_000)
    // Adding 1.5 × 2^52 leaves no fraction bits, so the sum is rounded to a whole number, and that
    // number is the low 32 bits of the sum's pattern: the split costs two additions.
    let shifter = Lanes(repeating: 6_755_399_441_055_744.0)
    let shifted: Lanes = clamped + shifter
    let whole = (unsafeBitCast(shifted, to: Lanes.MaskStorage.self) &<< 32) &>> 32
    let t: Lanes = (clamped - (shifted - shifter)) * 0.693_147_180_559_945_3
    // e^t by its Taylor series to t¹⁰ (|t| ≤ 0.347: the first omitted term is below 1e-13),
    // evaluated by Estrin's scheme: pairs of terms, then pairs of pairs, four steps deep, not ten.
    let t2: Lanes = t * t, t4: Lanes = t2 * t2, t8: Lanes = t4 * t4
    let c2: Double = 1.0 / 2, c3: Double = 1.0 / 6, c4: Double = 1.0 / 24, c5: Double = 1.0 / 120, c6: Double = 1.0 / 720
    let c7: Double = 1.0 / 5_040, c8: Double = 1.0 / 40_320, c9: Double = 1.0 / 362_880, c10: Double = 1.0 / 3_628_800
    let lowFirst: Lanes = 1 + t
    let lowSecond: Lanes = c2 + t * c3
    let low: Lanes = lowFirst + t2 * lowSecond
    let middleFirst: Lanes = c4 + t * c5
    let middleSecond: Lanes = c6 + t * c7
    let middle: Lanes = middleFirst + t2 * middleSecond
    let highFirst: Lanes = c8 + t * c9
    let high: Lanes = highFirst + t2 * c10
    let lowAndMiddle: Lanes = low + t4 * middle
    let series: Lanes = lowAndMiddle + t8 * high
    // 2^whole, built from its exponent bits; beyond the normal range split it in two factors.
    let half = whole &>> 1
    let a = unsafeBitCast((half &+ 1_023) &<< 52, to: Lanes.self)
    let b = unsafeBitCast((whole &- half &+ 1_023) &<< 52, to: Lanes.self)
    return series * a * b
}

/// 2^x in each lane in single precision, the one implementation of the Float exponential (see the
/// Double one): accurate to about 1.5e-6 relative.
/// - Thread: any.
@inlinable @inline(__always)
public func exp2Lanes<Lanes: SIMD>(_ x: Lanes) -> Lanes where Lanes.Scalar == Float, Lanes.MaskStorage.Scalar == Int32 {
    let clamped = lanewiseClamp(x, -126, 126)
    // Adding 1.5 × 2^23 rounds to a whole number, which the sum's significand then holds above
    // 2^22: the split at the nearest integer, so the fraction is in [-0.5, 0.5].
    let shifter = Lanes(repeating: 12_582_912)
    let shifted: Lanes = clamped + shifter
    let whole = (unsafeBitCast(shifted, to: Lanes.MaskStorage.self) & 0x7F_FFFF) &- 0x40_0000
    let f: Lanes = clamped - (shifted - shifter)
    // Taylor series of e^(f·ln2) to f⁶ (the first omitted term is below (0.5·ln2)⁷/7! ≈ 1.2e-7),
    // by Estrin's scheme.
    let f2: Lanes = f * f, f4: Lanes = f2 * f2
    let c1: Float = 0.693_147_18, c2: Float = 0.240_226_5, c3: Float = 0.055_504_11
    let c4: Float = 0.009_618_129, c5: Float = 0.001_333_355_8, c6: Float = 0.000_154_035_3
    let first: Lanes = 1 + f * c1
    let second: Lanes = c2 + f * c3
    let thirdInner: Lanes = c4 + f * c5
    let third: Lanes = thirdInner + f2 * c6
    let series: Lanes = (first + f2 * second) + f4 * third
    return series * unsafeBitCast((whole &+ 127) &<< 23, to: Lanes.self)
}

/// The frequency ratio of `cents` (1200 cents = one octave).
/// - Thread: any.
@inlinable @inline(__always) @_noAllocation @_noLocks
public func centsToRatio(_ cents: Double) -> Double { fastExp2(cents * (1.0 / 1_200)) }

/// `centsToRatio` of eight lanes, each bit for bit the scalar result.
/// - Thread: any.
@inlinable @inline(__always) @_noAllocation @_noLocks
public func centsToRatio(_ cents: SIMD8<Double>) -> SIMD8<Double> { fastExp2(cents * (1.0 / 1_200)) }

/// The linear amplitude of an attenuation in centibels (200 cB = a factor of 10).
/// - Thread: any.
@inlinable @inline(__always) @_noAllocation @_noLocks
public func centibelsToAmplitude(_ centibels: Float) -> Float {
    fastExp2(-centibels * (3.321_928_1 / 200))  // log2(10) / 200
}

/// `centibelsToAmplitude` of eight lanes, each bit for bit the scalar result.
/// - Thread: any.
@inlinable @inline(__always) @_noAllocation @_noLocks
public func centibelsToAmplitude(_ centibels: SIMD8<Float>) -> SIMD8<Float> {
    fastExp2(-centibels * (3.321_928_1 / 200))
}

/// The linear amplitude of a gain in decibels (20 dB = a factor of 10).
/// - Thread: any.
@inlinable @_noAllocation @_noLocks
public func decibelsToAmplitude(_ decibels: Float) -> Float {
    fastExp2(decibels * (3.321_928_1 / 20))  // log2(10) / 20
}

/// The gain in decibels of a linear amplitude: 20·log10(a) = 20·log10(2)·log2(a).
/// - Thread: any.
@inlinable @_noAllocation @_noLocks
public func amplitudeToDecibels(_ amplitude: Float) -> Float {
    6.020_6 * log2Approximation(amplitude)
}

/// Hertz of an absolute pitch in cents (SF2: 8.176 Hz × 2^(cents/1200); 6900 cents = 440 Hz).
/// - Thread: any.
@inlinable @inline(__always) @_noAllocation @_noLocks
public func absoluteCentsToHertz(_ cents: Float) -> Float {
    8.175_799 * fastExp2(cents * (1.0 / 1_200))
}

/// `absoluteCentsToHertz` of eight lanes, each bit for bit the scalar result.
/// - Thread: any.
@inlinable @inline(__always) @_noAllocation @_noLocks
public func absoluteCentsToHertz(_ cents: SIMD8<Float>) -> SIMD8<Float> {
    8.175_799 * fastExp2(cents * (1.0 / 1_200))
}

/// `x` clamped to `lowest...highest` in each lane, as `pointwiseMin(pointwiseMax(x, lowest),
/// highest)` gives it, bit for bit, but written as loads and stores of the lanes' bytes, which the
/// optimiser inlines and turns into vector instructions: the standard library's functions stay
/// calls that visit the lanes one at a time (as do its mask operations on a generic vector), and a
/// moving voice's exponentials spent a third of their time in them. Transparent, so that
/// unoptimised builds inline it too (it must stay in the file of its callers for that).
@usableFromInline @_transparent
func lanewiseClamp<Lanes: SIMD>(_ x: Lanes, _ lowest: Lanes.Scalar, _ highest: Lanes.Scalar) -> Lanes where Lanes.Scalar: FloatingPoint {
    var result = x
    let stride = MemoryLayout<Lanes.Scalar>.stride
    withUnsafeMutableBytes(of: &result) { lanes in
        for lane in 0..<Lanes.scalarCount {
            let value = lanes.load(fromByteOffset: lane * stride, as: Lanes.Scalar.self)
            lanes.storeBytes(of: min(max(value, lowest), highest), toByteOffset: lane * stride, as: Lanes.Scalar.self)
        }
    }
    return result
}
