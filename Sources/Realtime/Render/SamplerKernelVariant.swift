import CPUFeatures
import DSP
import SamplerKernels
import SamplerKernelsAVX2

/// Which build of the sampler's per-frame loops (`SamplerKernels`, one source compiled twice) renders
/// voices. Chosen once when the renderer is built, on the control thread, from what the CPU supports;
/// the audio thread only switches on it, once per group of eight voices per block.
public enum SamplerKernelVariant: Sendable, Equatable, CustomStringConvertible {
    /// Baseline x86-64 (SSE2): runs on every CPU the toolchain targets.
    case generic
    /// Compiled for AVX2 with fused multiply-add: 256-bit vectors and one rounding per product-and-sum.
    case avx2FMA

    /// The fastest variant this CPU runs.
    /// - Thread: control
    public static let fastestSupported: SamplerKernelVariant = staccato_cpu_supports_avx2_fma() != 0 ? .avx2FMA : .generic

    /// Whether this CPU can run the variant.
    /// - Thread: control
    public var isSupported: Bool {
        switch self {
        case .generic: true
        case .avx2FMA: Self.fastestSupported == .avx2FMA
        }
    }

    /// - Thread: control
    public var description: String {
        switch self {
        case .generic: "generic (SSE2)"
        case .avx2FMA: "AVX2+FMA"
        }
    }

    /// `SamplerKernels.readLanes` of this variant.
    /// - Thread: audio
    @inline(__always) @_noAllocation @_noLocks
    func readLanes(cubic: Bool, encoding: SampleEncoding, anyLaneLoops: Bool, bases: UnsafePointer<UnsafeRawPointer>,
                   crossingBases: UnsafePointer<UnsafeRawPointer>, positions: UnsafePointer<LanePositions>,
                   into output: UnsafeMutablePointer<SIMD8<Float>>, frameCount: Int) {
        if case .avx2FMA = self {
            SamplerKernelsAVX2.readLanes(cubic: cubic, encoding: encoding, anyLaneLoops: anyLaneLoops, bases: bases, crossingBases: crossingBases,
                                         positions: positions, into: output, frameCount: frameCount)
        } else {
            SamplerKernels.readLanes(cubic: cubic, encoding: encoding, anyLaneLoops: anyLaneLoops, bases: bases, crossingBases: crossingBases,
                                     positions: positions, into: output, frameCount: frameCount)
        }
    }

    /// `SamplerKernels.mixLanes` of this variant.
    /// - Thread: audio
    @inline(__always) @_noAllocation @_noLocks
    func mixLanes(_ frames: UnsafePointer<SIMD8<Float>>, frameCount: Int, gains: UnsafePointer<LaneGains>,
                  filtering: Bool, filter: inout VoiceFilterLanes, sendsReverb: Bool, sendsChorus: Bool,
                  busLeft: UnsafeMutablePointer<SIMD8<Float>>, busRight: UnsafeMutablePointer<SIMD8<Float>>,
                  busReverb: UnsafeMutablePointer<SIMD8<Float>>, busChorus: UnsafeMutablePointer<SIMD8<Float>>) {
        if case .avx2FMA = self {
            SamplerKernelsAVX2.mixLanes(frames, frameCount: frameCount, gains: gains, filtering: filtering, filter: &filter,
                                        sendsReverb: sendsReverb, sendsChorus: sendsChorus, busLeft: busLeft, busRight: busRight,
                                        busReverb: busReverb, busChorus: busChorus)
        } else {
            SamplerKernels.mixLanes(frames, frameCount: frameCount, gains: gains, filtering: filtering, filter: &filter,
                                    sendsReverb: sendsReverb, sendsChorus: sendsChorus, busLeft: busLeft, busRight: busRight,
                                    busReverb: busReverb, busChorus: busChorus)
        }
    }
}
