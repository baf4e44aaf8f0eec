// Per-block parameters of the sampler kernels (modules SamplerKernels, SamplerKernelsAVX2,
// SamplerKernelsAVX512), defined here so that every build of the kernels takes the same types.

/// Where eight lanes of the SIMD reader are in their samples, how far they step each frame, and
/// where their loops end: a whole frame count from the lane's base and a Float fraction, cheap to
/// step and convert. A lane given a loop (`crossingFrom`) loops inside the reader: its run goes on
/// through its loop end, reading the two windows that reach across it from a stitched copy and
/// stepping back by the loop's length when it passes the end.
public struct LanePositions {
    /// - Thread: audio.
    public var fraction: SIMD8<Float>
    /// - Thread: audio.
    public var fractionStep: SIMD8<Float>
    /// The whole count the lane starts at. Unsigned, so that a lane's index widens to a pointer
    /// offset for free: a lane that loops in the reader counts from its loop's start when it is
    /// past it, so that stepping back never takes its count below 0.
    /// - Thread: audio.
    public var whole: SIMD8<UInt32>
    /// - Thread: audio.
    public var wholeStep: SIMD8<UInt32>
    /// A lane's loop in the reader, as whole counts from the lane's base: from `crossingFrom` its
    /// four-frame window reaches past its loop end, and it reads the window from its stitched copy
    /// (the reader's `crossingBases`); at `wrapFrom`, its loop end, it steps back by
    /// `loopLength`. `Int32.max` in a lane whose loop end the run cannot reach. (Signed: the vector
    /// comparisons are.)
    /// - Thread: audio.
    public var crossingFrom: SIMD8<Int32>
    /// - Thread: audio.
    public var wrapFrom: SIMD8<Int32>
    /// - Thread: audio.
    public var loopLength: SIMD8<UInt32>

    /// Every lane at rest: at 0, stepping by 0, looping nowhere.
    /// - Thread: audio | control
    @inlinable @_noAllocation @_noLocks
    public init() {
        (fraction, fractionStep, whole, wholeStep, loopLength) = (SIMD8(), SIMD8(), SIMD8(), SIMD8(), SIMD8())
        (crossingFrom, wrapFrom) = (SIMD8(repeating: .max), SIMD8(repeating: .max))
    }

    /// Back to `init()`'s values, a vector at a time: assigning a new value copied it whole
    /// through a call to `memcpy`.
    /// - Thread: audio | control
    @inlinable @_noAllocation @_noLocks
    public mutating func reset() {
        (fraction, fractionStep, whole, wholeStep, loopLength) = (SIMD8(), SIMD8(), SIMD8(), SIMD8(), SIMD8())
        (crossingFrom, wrapFrom) = (SIMD8(repeating: .max), SIMD8(repeating: .max))
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
