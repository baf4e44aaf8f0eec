// Per-block parameters of the sampler kernels (modules SamplerKernels / SamplerKernelsAVX2), defined
// here so that both builds of the kernels take the same types.

/// Where eight lanes of the SIMD reader are in their samples, and how far they step each frame: a
/// Float fraction and a whole frame count from the lane's base, cheap to step and convert.
public struct LanePositions {
    /// - Thread: audio.
    public var fraction: SIMD8<Float>
    /// - Thread: audio.
    public var fractionStep: SIMD8<Float>
    /// Unsigned, so that a lane's index widens to a pointer offset for free.
    /// - Thread: audio.
    public var wholeStep: SIMD8<UInt32>

    /// - Thread: audio | control
    @inlinable @_noAllocation @_noLocks
    public init() {
        fraction = SIMD8()
        fractionStep = SIMD8()
        wholeStep = SIMD8()
    }
}

/// Each lane's gain at the start of a block and its step per frame: for both sides of the dry mix,
/// and for the reverb and chorus sends (mono: FluidSynth's effects take one input each).
public struct LaneGains {
    /// - Thread: audio.
    public var leftStart: SIMD8<Float>, leftStep: SIMD8<Float>
    /// - Thread: audio.
    public var rightStart: SIMD8<Float>, rightStep: SIMD8<Float>
    /// - Thread: audio.
    public var reverbStart: SIMD8<Float>, reverbStep: SIMD8<Float>
    /// - Thread: audio.
    public var chorusStart: SIMD8<Float>, chorusStep: SIMD8<Float>

    /// - Thread: audio | control
    @inlinable @_noAllocation @_noLocks
    public init() {
        leftStart = SIMD8(); leftStep = SIMD8(); rightStart = SIMD8(); rightStep = SIMD8()
        reverbStart = SIMD8(); reverbStep = SIMD8(); chorusStart = SIMD8(); chorusStep = SIMD8()
    }
}

/// How a sample pool stores its frames, which the sampler's reader converts from as it reads.
/// Samples are kept at the width their file stores them: widening 16-bit samples to Float at load
/// would double a font's memory for nothing the ear can hear.
public enum SampleEncoding: UInt8, Sendable, BitwiseCopyable {
    /// 16-bit signed integers, full scale 32768: SF2's smpl chunk, and SF3's Vorbis streams
    /// decoded as FluidSynth decodes them.
    case int16
    /// 32-bit floats, full scale 1: 24-bit SF2 samples (smpl with sm24; a Float holds 24 bits
    /// exactly) and sample sets, whatever their files' widths.
    case float32

    /// Bytes one frame takes.
    /// - Thread: any.
    @inlinable
    public var bytesPerFrame: Int {
        @_noAllocation @_noLocks get {
        switch self {
        case .int16: 2
        case .float32: 4
        }
        }
    }

    /// What a stored value is multiplied by to reach full scale 1. A power of two, so the product
    /// is exact: interpolating converted values or converting the interpolated one gives the same
    /// bits, which lets the reader convert once per output frame.
    /// - Thread: any.
    @inlinable
    public var scale: Float {
        @_noAllocation @_noLocks get {
        switch self {
        case .int16: 1 / 32_768
        case .float32: 1
        }
        }
    }
}
