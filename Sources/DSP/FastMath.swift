// Exponentials for the audio thread. libm's exp2/pow are opaque calls the real-time checker
// rejects, and they are slower than we need: these are pure Swift and branch-light. The Float
// version is accurate to about 1.5e-6 relative (0.00001 dB, 0.003 cents), the Double one to 1e-12:
// far below what any pitch or level calculation here can hear.

/// 2^x for |x| < 126.
/// - Thread: any.
@inlinable @_noAllocation @_noLocks
public func fastExp2(_ x: Float) -> Float {
    let clamped = min(max(x, -126), 126)
    // Split at the nearest integer, so the fraction is in [-0.5, 0.5] where the series is short.
    let whole = Float(Int32(clamped + (clamped < 0 ? -0.5 : 0.5)))
    let f = clamped - whole
    // Taylor series of e^(f·ln2) to f⁶: the first omitted term is below (0.5·ln2)⁷/7! ≈ 1.2e-7.
    let p = 1 + f * (0.693_147_18 + f * (0.240_226_5 + f * (0.055_504_11 + f * (0.009_618_129
        + f * (0.001_333_355_8 + f * 0.000_154_035_3)))))
    let exponentBits = UInt32(Int32(whole) + 127) << 23
    return p * Float(bitPattern: exponentBits)
}

/// 2^x in double precision for |x| < 1000, for phase increments where Float is not enough.
/// - Thread: any.
@inlinable @_noAllocation @_noLocks
public func fastExp2(_ x: Double) -> Double {
    let clamped = min(max(x, -1_000), 1_000)
    // Split at the nearest integer so the fraction is in [-0.5, 0.5].
    let whole = Double(Int(clamped + (clamped < 0 ? -0.5 : 0.5)))
    let t = (clamped - whole) * 0.693_147_180_559_945_3
    // e^t by its Taylor series to t¹⁰: for |t| ≤ 0.347 the first omitted term is below 1e-13.
    let series = 1 + t * (1 + t * (1.0 / 2 + t * (1.0 / 6 + t * (1.0 / 24 + t * (1.0 / 120 + t * (1.0 / 720
        + t * (1.0 / 5_040 + t * (1.0 / 40_320 + t * (1.0 / 362_880 + t / 3_628_800)))))))))
    // 2^whole, built from its exponent bits; beyond the normal range split it in two factors.
    let half = Int(whole) / 2
    let a = Double(bitPattern: UInt64(half + 1_023) << 52)
    let b = Double(bitPattern: UInt64(Int(whole) - half + 1_023) << 52)
    return series * a * b
}

/// The frequency ratio of `cents` (1200 cents = one octave).
/// - Thread: any.
@inlinable @_noAllocation @_noLocks
public func centsToRatio(_ cents: Double) -> Double { fastExp2(cents / 1_200) }

/// The linear amplitude of an attenuation in centibels (200 cB = a factor of 10).
/// - Thread: any.
@inlinable @_noAllocation @_noLocks
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
@inlinable @_noAllocation @_noLocks
public func absoluteCentsToHertz(_ cents: Float) -> Float {
    8.175_799 * fastExp2(cents / 1_200)
}
