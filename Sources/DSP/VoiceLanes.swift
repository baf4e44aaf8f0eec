// Per-block parameters of the sampler kernels (modules SamplerKernels / SamplerKernelsAVX2), defined
// here so that both builds of the kernels take the same types.

/// Where eight lanes of the SIMD reader are in their samples, and how far they step each frame: a
/// Float fraction and a whole frame count from the lane's base, cheap to step and convert.
public struct LanePositions {
    public var fraction: SIMD8<Float>
    public var fractionStep: SIMD8<Float>
    /// Unsigned, so that a lane's index widens to a pointer offset for free.
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
    public var leftStart: SIMD8<Float>, leftStep: SIMD8<Float>
    public var rightStart: SIMD8<Float>, rightStep: SIMD8<Float>
    public var reverbStart: SIMD8<Float>, reverbStep: SIMD8<Float>
    public var chorusStart: SIMD8<Float>, chorusStep: SIMD8<Float>

    /// - Thread: audio | control
    @inlinable @_noAllocation @_noLocks
    public init() {
        leftStart = SIMD8(); leftStep = SIMD8(); rightStart = SIMD8(); rightStep = SIMD8()
        reverbStart = SIMD8(); reverbStep = SIMD8(); chorusStart = SIMD8(); chorusStep = SIMD8()
    }
}
