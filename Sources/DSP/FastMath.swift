// Exponentials for the audio thread. libm's exp2/pow are opaque calls the real-time checker
// rejects, and they are slower than we need: these are pure Swift and branch-light. The Float
// version is accurate to about 1.5e-6 relative (0.00001 dB, 0.003 cents), the Double one to 1e-12:
// far below what any pitch or level calculation here can hear.

/// 2^x for |x| < 126. A voice whose level or cutoff moves calls it every block: like the Double
/// one, it splits `x` by adding a constant and runs the series in independent pairs.
/// - Thread: any.
@inlinable @inline(__always) @_noAllocation @_noLocks
public func fastExp2(_ x: Float) -> Float {
    let clamped = min(max(x, -126), 126)
    // Adding 1.5 × 2^23 rounds to a whole number, which the sum's significand then holds above
    // 2^22: the split at the nearest integer, so the fraction is in [-0.5, 0.5].
    let shifter: Float = 12_582_912
    let shifted = clamped + shifter
    let whole = Int32(truncatingIfNeeded: shifted.bitPattern & 0x7F_FFFF) - 0x40_0000
    let f = clamped - (shifted - shifter)
    // Taylor series of e^(f·ln2) to f⁶ (the first omitted term is below (0.5·ln2)⁷/7! ≈ 1.2e-7),
    // by Estrin's scheme.
    let f2 = f * f, f4 = f2 * f2
    let p = (1 + f * 0.693_147_18) + f2 * (0.240_226_5 + f * 0.055_504_11)
        + f4 * ((0.009_618_129 + f * 0.001_333_355_8) + f2 * 0.000_154_035_3)
    return p * Float(bitPattern: UInt32(truncatingIfNeeded: whole + 127) << 23)
}

/// 2^x in double precision for |x| < 1000, for phase increments where Float is not enough.
/// A voice whose pitch moves (a vibrato, a pitch envelope) calls it every block, so it is written
/// for latency: no conversion instructions, no division, and the series in independent pairs.
/// - Thread: any.
@inlinable @inline(__always) @_noAllocation @_noLocks
public func fastExp2(_ x: Double) -> Double {
    let clamped = min(max(x, -1_000), 1_000)
    // Adding 1.5 × 2^52 leaves no fraction bits, so the sum is rounded to a whole number, and that
    // number is the low bits of the sum's pattern: the split costs two additions.
    let shifter = 6_755_399_441_055_744.0
    let shifted = clamped + shifter
    let whole = Int(Int32(truncatingIfNeeded: shifted.bitPattern))
    let t = (clamped - (shifted - shifter)) * 0.693_147_180_559_945_3
    // e^t by its Taylor series to t¹⁰ (|t| ≤ 0.347: the first omitted term is below 1e-13),
    // evaluated by Estrin's scheme: pairs of terms, then pairs of pairs, four steps deep, not ten.
    let t2 = t * t, t4 = t2 * t2, t8 = t4 * t4
    let low = (1 + t) + t2 * (1.0 / 2 + t * (1.0 / 6))
    let middle = (1.0 / 24 + t * (1.0 / 120)) + t2 * (1.0 / 720 + t * (1.0 / 5_040))
    let high = (1.0 / 40_320 + t * (1.0 / 362_880)) + t2 * (1.0 / 3_628_800)
    let series = (low + t4 * middle) + t8 * high
    // 2^whole, built from its exponent bits; beyond the normal range split it in two factors.
    let half = whole >> 1
    let a = Double(bitPattern: UInt64(truncatingIfNeeded: half + 1_023) << 52)
    let b = Double(bitPattern: UInt64(truncatingIfNeeded: whole - half + 1_023) << 52)
    return series * a * b
}

/// The frequency ratio of `cents` (1200 cents = one octave).
/// - Thread: any.
@inlinable @inline(__always) @_noAllocation @_noLocks
public func centsToRatio(_ cents: Double) -> Double { fastExp2(cents * (1.0 / 1_200)) }

/// The linear amplitude of an attenuation in centibels (200 cB = a factor of 10).
/// - Thread: any.
@inlinable @inline(__always) @_noAllocation @_noLocks
public func centibelsToAmplitude(_ centibels: Float) -> Float {
    fastExp2(-centibels * (3.321_928_1 / 200))  // log2(10) / 200
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
