import CPUFeatures
import DSP
import Glibc
import SamplerKernels
import SamplerKernelsAVX2
import SamplerKernelsAVX512

/// Which build of the sampler's per-frame loops (`SamplerKernels`, one source compiled three times)
/// renders voices. Chosen once when the renderer is built, on the control thread, from what the CPU
/// supports; the audio thread only switches on it, once per group of eight voices per block.
///
/// The AVX2 and AVX-512 builds run the same operations with the same fused multiply-adds and render
/// the same bits; the generic build rounds each product before its sum, a few float ulps apart.
public enum SamplerKernelVariant: Int, Sendable, Equatable, Comparable, CaseIterable, CustomStringConvertible {
    /// Baseline x86-64 (SSE2): runs on every CPU the toolchain targets.
    case generic
    /// Compiled for AVX2 with fused multiply-add: 256-bit vectors and one rounding per product-and-sum.
    case avx2FMA
    /// Compiled for AVX-512 (F, VL, BW, DQ) as well: the same eight lanes, with thirty-two vector
    /// registers and mask registers.
    case avx512

    /// The name `STACCATO_SAMPLER_KERNELS` takes for the variant.
    /// - Thread: any
    public var name: String {
        switch self {
        case .generic: "generic"
        case .avx2FMA: "avx2"
        case .avx512: "avx512"
        }
    }

    /// The fastest variant this CPU runs, before any limit.
    public static let fastestOnThisCPU: SamplerKernelVariant =
        staccato_cpu_supports_avx512() != 0 ? .avx512 : staccato_cpu_supports_avx2_fma() != 0 ? .avx2FMA : .generic

    /// The most the environment allows: `STACCATO_SAMPLER_KERNELS=generic|avx2|avx512` holds every
    /// renderer of the process to that build or a lesser one (to compare builds, or to rule one out).
    /// Unset, no limit; a value it does not know is named on standard error once and ignored.
    public static let environmentLimit: SamplerKernelVariant? = {
        guard let value = getenv("STACCATO_SAMPLER_KERNELS").map({ String(cString: $0) }), !value.isEmpty else { return nil }
        if let variant = allCases.first(where: { $0.name == value }) { return variant }
        let names = allCases.map(\.name).joined(separator: ", ")
        let line = "staccato: STACCATO_SAMPLER_KERNELS=\(value) is not one of \(names); ignored\n"
        _ = line.withCString { write(STDERR_FILENO, $0, strlen($0)) }
        return nil
    }()

    /// The fastest variant this CPU runs within the environment's limit: what renderers take by default.
    public static let fastestSupported: SamplerKernelVariant = min(fastestOnThisCPU, environmentLimit ?? fastestOnThisCPU)

    /// Whether this CPU can run the variant, within the environment's limit.
    /// - Thread: any
    public var isSupported: Bool { self <= Self.fastestSupported }

    /// Every variant this CPU runs within the environment's limit, slowest first.
    /// - Thread: any
    public static var supportedVariants: [SamplerKernelVariant] { allCases.filter(\.isSupported) }

    /// - Thread: any
    public static func < (lhs: SamplerKernelVariant, rhs: SamplerKernelVariant) -> Bool { lhs.rawValue < rhs.rawValue }

    /// - Thread: any
    public var description: String {
        switch self {
        case .generic: "generic (SSE2)"
        case .avx2FMA: "AVX2+FMA"
        case .avx512: "AVX-512"
        }
    }

    /// `SamplerKernels.readLanes` of this variant.
    /// - Thread: audio
    @inline(__always) @_noAllocation @_noLocks
    func readLanes(cubic: Bool, encoding: SampleEncoding, anyLaneLoops: Bool, bases: UnsafePointer<UnsafeRawPointer>,
                   crossingBases: UnsafePointer<UnsafeRawPointer>, positions: UnsafePointer<LanePositions>,
                   into output: UnsafeMutablePointer<SIMD8<Float>>, frameCount: Int) {
        switch self {
        case .avx512:
            SamplerKernelsAVX512.readLanes(cubic: cubic, encoding: encoding, anyLaneLoops: anyLaneLoops, bases: bases, crossingBases: crossingBases,
                                           positions: positions, into: output, frameCount: frameCount)
        case .avx2FMA:
            SamplerKernelsAVX2.readLanes(cubic: cubic, encoding: encoding, anyLaneLoops: anyLaneLoops, bases: bases, crossingBases: crossingBases,
                                         positions: positions, into: output, frameCount: frameCount)
        case .generic:
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
                  busReverb: UnsafeMutablePointer<SIMD8<Float>>, busChorus: UnsafeMutablePointer<SIMD8<Float>>,
                  leftFrom: UnsafePointer<SIMD8<Float>>, rightFrom: UnsafePointer<SIMD8<Float>>,
                  reverbFrom: UnsafePointer<SIMD8<Float>>, chorusFrom: UnsafePointer<SIMD8<Float>>) {
        switch self {
        case .avx512:
            SamplerKernelsAVX512.mixLanes(frames, frameCount: frameCount, gains: gains, filtering: filtering, filter: &filter,
                                          sendsReverb: sendsReverb, sendsChorus: sendsChorus, busLeft: busLeft, busRight: busRight,
                                          busReverb: busReverb, busChorus: busChorus, leftFrom: leftFrom, rightFrom: rightFrom,
                                          reverbFrom: reverbFrom, chorusFrom: chorusFrom)
        case .avx2FMA:
            SamplerKernelsAVX2.mixLanes(frames, frameCount: frameCount, gains: gains, filtering: filtering, filter: &filter,
                                        sendsReverb: sendsReverb, sendsChorus: sendsChorus, busLeft: busLeft, busRight: busRight,
                                        busReverb: busReverb, busChorus: busChorus, leftFrom: leftFrom, rightFrom: rightFrom,
                                        reverbFrom: reverbFrom, chorusFrom: chorusFrom)
        case .generic:
            SamplerKernels.mixLanes(frames, frameCount: frameCount, gains: gains, filtering: filtering, filter: &filter,
                                    sendsReverb: sendsReverb, sendsChorus: sendsChorus, busLeft: busLeft, busRight: busRight,
                                    busReverb: busReverb, busChorus: busChorus, leftFrom: leftFrom, rightFrom: rightFrom,
                                    reverbFrom: reverbFrom, chorusFrom: chorusFrom)
        }
    }

    /// `SamplerKernels.sumLanes` of this variant.
    /// - Thread: audio
    @inline(__always) @_noAllocation @_noLocks
    func sumLanes(_ bus: UnsafePointer<SIMD8<Float>>, into output: UnsafeMutablePointer<Float>, frameCount: Int) {
        switch self {
        case .avx512: SamplerKernelsAVX512.sumLanes(bus, into: output, frameCount: frameCount)
        case .avx2FMA: SamplerKernelsAVX2.sumLanes(bus, into: output, frameCount: frameCount)
        case .generic: SamplerKernels.sumLanes(bus, into: output, frameCount: frameCount)
        }
    }

    /// `SamplerKernels.twoPoleLowPassLanes` of this variant.
    /// - Thread: audio
    @inline(__always) @_noAllocation @_noLocks
    func twoPoleLowPassLanes(turns: SIMD8<Double>, q: SIMD8<Float>, passbandGain: SIMD8<Float>)
        -> (sine: SIMD8<Float>, cosine: SIMD8<Float>, b0: SIMD8<Float>, b1: SIMD8<Float>, a1: SIMD8<Float>, a2: SIMD8<Float>) {
        switch self {
        case .avx512: SamplerKernelsAVX512.twoPoleLowPassLanes(turns: turns, q: q, passbandGain: passbandGain)
        case .avx2FMA: SamplerKernelsAVX2.twoPoleLowPassLanes(turns: turns, q: q, passbandGain: passbandGain)
        case .generic: SamplerKernels.twoPoleLowPassLanes(turns: turns, q: q, passbandGain: passbandGain)
        }
    }
}
