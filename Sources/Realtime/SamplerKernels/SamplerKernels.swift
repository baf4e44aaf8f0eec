// The sampler's per-frame loops: reading eight voices' samples, filtering and mixing them and
// summing a bus's lanes; and the group's vector math that runs per block (the low-pass terms). This
// one file is compiled three times: as module `SamplerKernels` for baseline x86-64 (SSE2) and,
// through symbolic links, as `SamplerKernelsAVX2` with AVX2 and FMA enabled and as
// `SamplerKernelsAVX512` with AVX-512 too, both with FUSED_MULTIPLY_ADD and WIDE_VECTORS (256-bit
// registers) defined; `SamplerKernelVariant` (module Render) picks one at start from what the CPU
// supports. Nothing here may call code outside this file that is not inlined into
// it: a shared out-of-line helper would be compiled for one target and could run on a CPU without
// its instructions. (The wide builds' intrinsics are inlined C, one instruction each.)
import DSP
#if WIDE_VECTORS
import _Builtin_intrinsics.intel
#endif

/// `a × b + c`, lane by lane: one fused multiply-add (rounded once, one instruction) where this file
/// is compiled for FMA, else a multiply and an add. Decided here at compile time: a flag passed in
/// and folded later leaves the optimiser splitting vectors around the branch it did not take.
/// Transparent, so that even unoptimised builds inline it and make no generic call.
@_transparent
func multiplyAdd<Lanes: SIMD>(_ a: Lanes, _ b: Lanes, _ c: Lanes) -> Lanes where Lanes.Scalar == Float {
    #if FUSED_MULTIPLY_ADD
    c.addingProduct(a, b)
    #else
    a * b + c
    #endif
}

/// The factored Catmull-Rom of `cubic(_:_:_:_:_:)` (module Render) between `y0` and `y1`, lane by lane.
@_transparent
func catmullRom<Lanes: SIMD>(_ ym1: Lanes, _ y0: Lanes, _ y1: Lanes, _ y2: Lanes, at t: Lanes) -> Lanes where Lanes.Scalar == Float {
    let slope = (y1 - ym1) * 0.5
    let v = y0 - y1
    let w = slope + v
    let a = w + v + (y2 - y0) * 0.5
    let b = w + a
    return multiplyAdd(multiplyAdd(multiplyAdd(a, t, -b), t, slope), t, y0)
}

/// Four neighbouring frames of a pool stored as 16-bit words (`words`) or Floats, loaded as one
/// vector from `base` and widened to Float at the stored scale.
@_transparent
func loadWindow(_ base: UnsafeRawPointer, words: Bool) -> SIMD4<Float> {
    words ? SIMD4<Float>(SIMD4<Int32>(truncatingIfNeeded: base.loadUnaligned(as: SIMD4<Int16>.self)))
          : base.loadUnaligned(as: SIMD4<Float>.self)
}

/// Reads `frameCount` interpolated frames of eight lanes into `output`: lane k from `bases[k]` (one
/// frame before the first it interpolates from, in a pool stored as `encoding`) at `positions`. Each
/// lane loads its four neighbouring samples as one vector; the vectors are transposed so that the
/// interpolation runs across lanes. The frames keep the stored scale (a 16-bit pool's reach ±32768):
/// the caller folds `SampleEncoding.scale`, a power of two, into the lanes' gains, which gives the
/// bits scaling each frame would, one multiply a block rather than one a frame.
/// With `anyLaneLoops`, a lane that loops in the reader (`LanePositions.loopLength`) reads the windows
/// that reach past its loop end from `crossingBases[k]` (its stitched copy, placed so that the
/// same whole count finds it) and steps back at the end. Every other lane must stay two frames
/// clear of its sample's end or loop end (the caller checks); without it, every lane must, and
/// no frame pays for the test.
/// - Thread: audio
@_noAllocation @_noLocks
public func readLanes(cubic: Bool, encoding: SampleEncoding, anyLaneLoops: Bool, bases: UnsafePointer<UnsafeRawPointer>,
                      crossingBases: UnsafePointer<UnsafeRawPointer>, positions: UnsafePointer<LanePositions>,
                      into output: UnsafeMutablePointer<SIMD8<Float>>, frameCount: Int) {
    // One specialised loop per encoding, interpolation and looping, so that none tests any per frame.
    switch (encoding, cubic, anyLaneLoops) {
    case (.int16, true, false): readWordLanesCubic(bases, positions, output, frameCount)
    case (.int16, true, true): readLoopingWordLanesCubic(bases, crossingBases, positions, output, frameCount)
    case (.int16, false, false): readWordLanesLinear(bases, positions, output, frameCount)
    case (.int16, false, true): readLoopingWordLanesLinear(bases, crossingBases, positions, output, frameCount)
    case (.float32, true, false): readFloatLanesCubic(bases, positions, output, frameCount)
    case (.float32, true, true): readLoopingFloatLanesCubic(bases, crossingBases, positions, output, frameCount)
    case (.float32, false, false): readFloatLanesLinear(bases, positions, output, frameCount)
    case (.float32, false, true): readLoopingFloatLanesLinear(bases, crossingBases, positions, output, frameCount)
    }
}

// The eight loops, each a function of its own around one inlined copy of the reader with its three
// flags constant. Inlined together into one caller, the optimiser stopped inlining them and merged
// the calls into one, flags tested every frame. (The loops that do not loop take no stitched
// bases: an argument left unused made the optimiser emit a copy without it that other modules
// could link to.)
typealias LaneBases = UnsafePointer<UnsafeRawPointer>
typealias LanePositionsPointer = UnsafePointer<LanePositions>
typealias LaneOutput = UnsafeMutablePointer<SIMD8<Float>>

@inline(never) @_noAllocation @_noLocks
func readWordLanesCubic(_ bases: LaneBases, _ positions: LanePositionsPointer, _ output: LaneOutput, _ frameCount: Int) {
    readAllLanes(words: true, cubic: true, anyLaneLoops: false, bases, bases, positions, output, frameCount)
}
@inline(never) @_noAllocation @_noLocks
func readLoopingWordLanesCubic(_ bases: LaneBases, _ crossingBases: LaneBases, _ positions: LanePositionsPointer,
                               _ output: LaneOutput, _ frameCount: Int) {
    readAllLanes(words: true, cubic: true, anyLaneLoops: true, bases, crossingBases, positions, output, frameCount)
}
@inline(never) @_noAllocation @_noLocks
func readWordLanesLinear(_ bases: LaneBases, _ positions: LanePositionsPointer, _ output: LaneOutput, _ frameCount: Int) {
    readAllLanes(words: true, cubic: false, anyLaneLoops: false, bases, bases, positions, output, frameCount)
}
@inline(never) @_noAllocation @_noLocks
func readLoopingWordLanesLinear(_ bases: LaneBases, _ crossingBases: LaneBases, _ positions: LanePositionsPointer,
                                _ output: LaneOutput, _ frameCount: Int) {
    readAllLanes(words: true, cubic: false, anyLaneLoops: true, bases, crossingBases, positions, output, frameCount)
}
@inline(never) @_noAllocation @_noLocks
func readFloatLanesCubic(_ bases: LaneBases, _ positions: LanePositionsPointer, _ output: LaneOutput, _ frameCount: Int) {
    readAllLanes(words: false, cubic: true, anyLaneLoops: false, bases, bases, positions, output, frameCount)
}
@inline(never) @_noAllocation @_noLocks
func readLoopingFloatLanesCubic(_ bases: LaneBases, _ crossingBases: LaneBases, _ positions: LanePositionsPointer,
                                _ output: LaneOutput, _ frameCount: Int) {
    readAllLanes(words: false, cubic: true, anyLaneLoops: true, bases, crossingBases, positions, output, frameCount)
}
@inline(never) @_noAllocation @_noLocks
func readFloatLanesLinear(_ bases: LaneBases, _ positions: LanePositionsPointer, _ output: LaneOutput, _ frameCount: Int) {
    readAllLanes(words: false, cubic: false, anyLaneLoops: false, bases, bases, positions, output, frameCount)
}
@inline(never) @_noAllocation @_noLocks
func readLoopingFloatLanesLinear(_ bases: LaneBases, _ crossingBases: LaneBases, _ positions: LanePositionsPointer,
                                 _ output: LaneOutput, _ frameCount: Int) {
    readAllLanes(words: false, cubic: false, anyLaneLoops: true, bases, crossingBases, positions, output, frameCount)
}

/// All eight lanes: one pass of 256-bit vectors, or two of 128-bit ones.
@inline(__always)
func readAllLanes(words: Bool, cubic: Bool, anyLaneLoops: Bool, _ bases: LaneBases, _ crossingBases: LaneBases, _ positions: LanePositionsPointer,
                  _ output: LaneOutput, _ frameCount: Int) {
    #if WIDE_VECTORS
    readEightLanes(words: words, cubic: cubic, anyLaneLoops: anyLaneLoops, bases: bases, crossingBases: crossingBases, positions: positions,
                   into: output, frameCount: frameCount)
    #else
    for half in 0..<2 {
        readFourLanes(words: words, cubic: cubic, anyLaneLoops: anyLaneLoops, half: half, bases: bases, crossingBases: crossingBases,
                      positions: positions, into: output, frameCount: frameCount)
    }
    #endif
}

/// Steps back by `loopLength` every lane of `whole` at or past `wrapFrom`, then tells which lanes'
/// windows reach past their loop ends: those read from their stitched copies. Reached only in a
/// frame where some lane is near its loop end; the common frame tests one comparison. (One per
/// width: a generic one compared lane by lane through memory.)
/// (The counts are below 2^31, so the signed comparisons, which the vector units have, compare
/// them as numbers.)
@inline(__always)
func wrapLoops(_ whole: inout SIMD8<UInt32>, wrapFrom: SIMD8<Int32>, loopLength: SIMD8<UInt32>,
               crossingFrom: SIMD8<Int32>) -> SIMDMask<SIMD8<Int32>> {
    whole &-= SIMD8<UInt32>().replacing(with: loopLength, where: SIMD8<Int32>(truncatingIfNeeded: whole) .>= wrapFrom)
    return SIMD8<Int32>(truncatingIfNeeded: whole) .>= crossingFrom
}

@inline(__always)
func wrapLoops(_ whole: inout SIMD4<UInt32>, wrapFrom: SIMD4<Int32>, loopLength: SIMD4<UInt32>,
               crossingFrom: SIMD4<Int32>) -> SIMDMask<SIMD4<Int32>> {
    whole &-= SIMD4<UInt32>().replacing(with: loopLength, where: SIMD4<Int32>(truncatingIfNeeded: whole) .>= wrapFrom)
    return SIMD4<Int32>(truncatingIfNeeded: whole) .>= crossingFrom
}

/// The reader's loop for 128-bit vectors, one copy per interpolation so that neither tests the
/// other's flag every frame. It runs four lanes at a time (`half` 0: lanes 0–3, 1: lanes 4–7): eight
/// lanes' bases, positions and samples at once overflow the registers, and the spills cost more than
/// the second pass. Nothing here waits on a long chain, so four lanes lose no overlap.
@inline(__always)
func readFourLanes(words: Bool, cubic: Bool, anyLaneLoops: Bool, half: Int, bases: UnsafePointer<UnsafeRawPointer>,
                   crossingBases: UnsafePointer<UnsafeRawPointer>, positions: UnsafePointer<LanePositions>,
                   into output: UnsafeMutablePointer<SIMD8<Float>>, frameCount: Int) {
    let first = half * 4
    let b0 = bases[first], b1 = bases[first + 1], b2 = bases[first + 2], b3 = bases[first + 3]
    let all = positions.pointee
    var fraction = half == 0 ? all.fraction.lowHalf : all.fraction.highHalf
    let fractionStep = half == 0 ? all.fractionStep.lowHalf : all.fractionStep.highHalf
    let wholeStep = half == 0 ? all.wholeStep.lowHalf : all.wholeStep.highHalf
    let crossingFrom = half == 0 ? all.crossingFrom.lowHalf : all.crossingFrom.highHalf
    let wrapFrom = half == 0 ? all.wrapFrom.lowHalf : all.wrapFrom.highHalf
    let loopLength = half == 0 ? all.loopLength.lowHalf : all.loopLength.highHalf
    var whole = half == 0 ? all.whole.lowHalf : all.whole.highHalf
    let one = SIMD4<Float>(repeating: 1)
    var lanes = UnsafeMutableRawPointer(output).assumingMemoryBound(to: SIMD4<Float>.self) + half
    let frameBytes = words ? 2 : 4
    @inline(__always) func window(_ base: UnsafeRawPointer, _ whole: UInt32) -> SIMD4<Float> {
        loadWindow(base + Int(whole) * frameBytes, words: words)
    }
    @inline(__always) func wordWindow(_ base: UnsafeRawPointer, _ whole: UInt32) -> SIMD4<Int16> {
        (base + Int(whole) * 2).loadUnaligned(as: SIMD4<Int16>.self)
    }
    for _ in 0..<frameCount {
        // Each lane's base: its sample's, or near its loop end its stitched copy's.
        var c0 = b0, c1 = b1, c2 = b2, c3 = b3
        if anyLaneLoops && any(SIMD4<Int32>(truncatingIfNeeded: whole) .>= crossingFrom) {
            let crossing = wrapLoops(&whole, wrapFrom: wrapFrom, loopLength: loopLength, crossingFrom: crossingFrom)
            if crossing[0] { c0 = crossingBases[first] }
            if crossing[1] { c1 = crossingBases[first + 1] }
            if crossing[2] { c2 = crossingBases[first + 2] }
            if crossing[3] { c3 = crossingBases[first + 3] }
        }
        // Lane k's samples k-1 … k+2 around its position, one unaligned load per lane.
        let ym1: SIMD4<Float>, y0: SIMD4<Float>, y1: SIMD4<Float>, y2: SIMD4<Float>
        if words {
            // Transposed as words by unpacking (SSE2 has no widening load, and widening each window
            // first, then transposing Floats, takes a fifth more instructions), then widened.
            let w0 = wordWindow(c0, whole[0]), w1 = wordWindow(c1, whole[1])
            let w2 = wordWindow(c2, whole[2]), w3 = wordWindow(c3, whole[3])
            let pairs01 = unsafeBitCast(SIMD8<Int16>(w0[0], w1[0], w0[1], w1[1], w0[2], w1[2], w0[3], w1[3]), to: SIMD4<Int32>.self)
            let pairs23 = unsafeBitCast(SIMD8<Int16>(w2[0], w3[0], w2[1], w3[1], w2[2], w3[2], w2[3], w3[3]), to: SIMD4<Int32>.self)
            let early = unsafeBitCast(SIMD4<Int32>(pairs01[0], pairs23[0], pairs01[1], pairs23[1]), to: SIMD8<Int16>.self)
            let late = unsafeBitCast(SIMD4<Int32>(pairs01[2], pairs23[2], pairs01[3], pairs23[3]), to: SIMD8<Int16>.self)
            ym1 = SIMD4<Float>(SIMD4<Int32>(truncatingIfNeeded: early.lowHalf))
            y0 = SIMD4<Float>(SIMD4<Int32>(truncatingIfNeeded: early.highHalf))
            y1 = SIMD4<Float>(SIMD4<Int32>(truncatingIfNeeded: late.lowHalf))
            y2 = SIMD4<Float>(SIMD4<Int32>(truncatingIfNeeded: late.highHalf))
        } else {
            let r0 = window(c0, whole[0]), r1 = window(c1, whole[1]), r2 = window(c2, whole[2]), r3 = window(c3, whole[3])
            ym1 = SIMD4(r0[0], r1[0], r2[0], r3[0])
            y0 = SIMD4(r0[1], r1[1], r2[1], r3[1])
            y1 = SIMD4(r0[2], r1[2], r2[2], r3[2])
            y2 = SIMD4(r0[3], r1[3], r2[3], r3[3])
        }
        if cubic {
            lanes.pointee = catmullRom(ym1, y0, y1, y2, at: fraction)
        } else {
            lanes.pointee = multiplyAdd(y1 - y0, fraction, y0)
        }
        lanes += 2
        // Subtracting 1-or-0 rather than choosing between two results: fewer instructions
        // (SSE2 has no blend), and the same values.
        fraction += fractionStep
        let carry = fraction .>= one
        fraction -= SIMD4<Float>().replacing(with: 1, where: carry)
        whole &+= wholeStep
        whole.replace(with: whole &+ 1, where: carry)
    }
}

#if WIDE_VECTORS
/// The windows of one frame at each lane's `whole` count, as `readEightLanes` transposes them:
/// lane k's in the low half of register k mod 4 and lane k + 4's in its high half.
@inline(__always)
func windows(words: Bool, _ whole: SIMD8<UInt32>, _ bases: (UnsafeRawPointer, UnsafeRawPointer, UnsafeRawPointer, UnsafeRawPointer,
                                                          UnsafeRawPointer, UnsafeRawPointer, UnsafeRawPointer, UnsafeRawPointer))
    -> (SIMD8<Float>, SIMD8<Float>, SIMD8<Float>, SIMD8<Float>) {
    let frameBytes = words ? 2 : 4
    @inline(__always) func pair(_ low: UnsafeRawPointer, _ lowWhole: UInt32, _ high: UnsafeRawPointer, _ highWhole: UInt32) -> SIMD8<Float> {
        SIMD8(lowHalf: loadWindow(low + Int(lowWhole) * frameBytes, words: words),
              highHalf: loadWindow(high + Int(highWhole) * frameBytes, words: words))
    }
    return (pair(bases.0, whole[0], bases.4, whole[4]), pair(bases.1, whole[1], bases.5, whole[5]),
            pair(bases.2, whole[2], bases.6, whole[6]), pair(bases.3, whole[3], bases.7, whole[7]))
}

/// `windows` in a frame where some lane's window reaches past its loop end (`crossing`): those
/// lanes read from their stitched copies. Out of line, so that the common frame keeps every lane's
/// base in a register: inlined, the two paths' loads were merged and the bases reloaded from the
/// stack every frame.
@inline(never)
func crossingWindows(words: Bool, _ whole: SIMD8<UInt32>, _ crossing: SIMDMask<SIMD8<Int32>>, bases: UnsafePointer<UnsafeRawPointer>,
                     crossingBases: UnsafePointer<UnsafeRawPointer>) -> (SIMD8<Float>, SIMD8<Float>, SIMD8<Float>, SIMD8<Float>) {
    @inline(__always) func base(_ lane: Int) -> UnsafeRawPointer { crossing[lane] ? crossingBases[lane] : bases[lane] }
    return windows(words: words, whole, (base(0), base(1), base(2), base(3), base(4), base(5), base(6), base(7)))
}

/// The reader's loop for 256-bit vectors: all eight lanes in one pass. Lane k's window and lane k+4's
/// share a register (one in each 128-bit half), so the transpose and the interpolation serve eight
/// lanes for about the instructions four cost in the 128-bit loop.
@inline(__always)
func readEightLanes(words: Bool, cubic: Bool, anyLaneLoops: Bool, bases: UnsafePointer<UnsafeRawPointer>,
                    crossingBases: UnsafePointer<UnsafeRawPointer>, positions: UnsafePointer<LanePositions>,
                    into output: UnsafeMutablePointer<SIMD8<Float>>, frameCount: Int) {
    let own = (bases[0], bases[1], bases[2], bases[3], bases[4], bases[5], bases[6], bases[7])
    var fraction = positions.pointee.fraction
    let fractionStep = positions.pointee.fractionStep
    let wholeStep = positions.pointee.wholeStep
    let crossingFrom = positions.pointee.crossingFrom
    var whole = positions.pointee.whole
    let one = SIMD8<Float>(repeating: 1)
    // The windows of a frame are loaded at the end of the frame before: reaching the transpose
    // through the loop rather than straight from the loads, they are shuffled in registers, where
    // loaded in the same pass the optimiser re-reads them element by element (more instructions).
    // Each lane's windows from its sample, or near its loop end from its stitched copy, a lane
    // past its loop end stepped back first.
    @inline(__always) func load(_ whole: inout SIMD8<UInt32>) -> (SIMD8<Float>, SIMD8<Float>, SIMD8<Float>, SIMD8<Float>) {
        guard anyLaneLoops && any(SIMD8<Int32>(truncatingIfNeeded: whole) .>= crossingFrom) else { return windows(words: words, whole, own) }
        let crossing = wrapLoops(&whole, wrapFrom: positions.pointee.wrapFrom, loopLength: positions.pointee.loopLength,
                                 crossingFrom: crossingFrom)
        return crossingWindows(words: words, whole, crossing, bases: bases, crossingBases: crossingBases)
    }
    var (r0, r1, r2, r3) = load(&whole)
    // A pointer that moves to an end, not an index and a count: the register that saves keeps
    // every lane's base in one.
    var frame = output
    let end = output + frameCount
    while frame < end {
        // The transpose in two steps of two-register unpacks (eight instructions), the second step
        // through 64-bit lanes: written as one gather of four registers' elements, or as two steps
        // of Float lanes (which the optimiser folds back into one), it became 26 shuffles and blends.
        @inline(__always) func pairs(_ a: SIMD8<Float>, _ b: SIMD8<Float>, _ i: Int) -> SIMD4<UInt64> {
            unsafeBitCast(SIMD8(a[i], b[i], a[i + 1], b[i + 1], a[i + 4], b[i + 4], a[i + 5], b[i + 5]), to: SIMD4<UInt64>.self)
        }
        let low01 = pairs(r0, r1, 0), high01 = pairs(r0, r1, 2), low23 = pairs(r2, r3, 0), high23 = pairs(r2, r3, 2)
        @inline(__always) func join(_ a: SIMD4<UInt64>, _ b: SIMD4<UInt64>, _ i: Int) -> SIMD8<Float> {
            unsafeBitCast(SIMD4(a[i], b[i], a[i + 2], b[i + 2]), to: SIMD8<Float>.self)
        }
        let y0 = join(low01, low23, 1)
        let y1 = join(high01, high23, 0)
        if cubic {
            let ym1 = join(low01, low23, 0)
            let y2 = join(high01, high23, 1)
            frame.pointee = catmullRom(ym1, y0, y1, y2, at: fraction)
        } else {
            frame.pointee = multiplyAdd(y1 - y0, fraction, y0)
        }
        fraction += fractionStep
        let carry = fraction .>= one
        fraction -= SIMD8<Float>().replacing(with: 1, where: carry)
        whole &+= wholeStep
        whole.replace(with: whole &+ 1, where: carry)
        frame += 1
        guard frame < end else { break }
        (r0, r1, r2, r3) = load(&whole)
    }
}
#endif

/// Each frame of `bus` summed across its lanes into `output`, pairwise: lane `i` with lane `i + 4`,
/// then those sums in adjacent pairs, `((l0 + l4) + (l1 + l5)) + ((l2 + l6) + (l3 + l7))`. Only
/// adds, in that order in every build, so every build sums to the same bits.
/// - Thread: audio
@_noAllocation @_noLocks
public func sumLanes(_ bus: UnsafePointer<SIMD8<Float>>, into output: UnsafeMutablePointer<Float>, frameCount: Int) {
    var frame = 0
    while frame + 8 <= frameCount {
        UnsafeMutableRawPointer(output + frame).storeBytes(of: eightLaneSums(bus + frame), as: SIMD8<Float>.self)
        frame += 8
    }
    while frame < frameCount {
        let l = bus[frame]
        output[frame] = ((l[0] + l[4]) + (l[1] + l[5])) + ((l[2] + l[6]) + (l[3] + l[7]))
        frame += 1
    }
}

#if WIDE_VECTORS
/// The lane sums of eight frames from `frames`: each frame's halves added as they load (frame f's
/// in the low half of a register, frame f + 4's in its high half), then two rounds of horizontal
/// pair adds, which leave frames 0 … 3 in the low half and 4 … 7 in the high, in order. Through
/// the horizontal-add intrinsic: written as shuffles and adds, the optimiser moved the shuffles
/// through the adds and emitted four times the instructions.
@inline(__always)
func eightLaneSums(_ frames: UnsafePointer<SIMD8<Float>>) -> SIMD8<Float> {
    let halves = UnsafeRawPointer(frames).assumingMemoryBound(to: SIMD4<Float>.self)
    @inline(__always) func folded(_ frame: Int) -> SIMD8<Float> {
        SIMD8(lowHalf: halves[2 &* frame] + halves[2 &* frame &+ 1], highHalf: halves[2 &* frame &+ 8] + halves[2 &* frame &+ 9])
    }
    // The intrinsic is one instruction, inlined; the performance check cannot see into C.
    return _unsafePerformance { _mm256_hadd_ps(_mm256_hadd_ps(folded(0), folded(1)), _mm256_hadd_ps(folded(2), folded(3))) }
}
#else
/// The lane sums of eight frames from `frames`: two frames' halves folded at once (frame a's four
/// sums, then frame b's), then adjacent pairs, twice. (Written lane by lane: the vector halves'
/// generic code is not proved allocation-free in a debug build.)
@inline(__always)
func eightLaneSums(_ frames: UnsafePointer<SIMD8<Float>>) -> SIMD8<Float> {
    @inline(__always) func fold(_ a: SIMD8<Float>, _ b: SIMD8<Float>) -> SIMD8<Float> {
        SIMD8(a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3]) + SIMD8(a[4], a[5], a[6], a[7], b[4], b[5], b[6], b[7])
    }
    @inline(__always) func pairs(_ a: SIMD8<Float>, _ b: SIMD8<Float>) -> SIMD8<Float> {
        SIMD8(a[0], a[2], a[4], a[6], b[0], b[2], b[4], b[6]) + SIMD8(a[1], a[3], a[5], a[7], b[1], b[3], b[5], b[7])
    }
    let first = pairs(fold(frames[0], frames[1]), fold(frames[2], frames[3]))
    let second = pairs(fold(frames[4], frames[5]), fold(frames[6], frames[7]))
    return pairs(first, second)
}
#endif

/// The sine and cosine of eight lanes' filter cutoffs (`turns` of the rate, as
/// `VoiceFilter.twoPoleSines` computes them) and a two-pole low-pass's coefficients from them and
/// `q` and `passbandGain` (`VoiceFilter.twoPoleTerms`; b2 is b0): each lane bit for bit what
/// `VoiceFilter.setTwoPole` computes for one filter, in every build (plain operations, none fused).
/// Here rather than in module Render, which builds for baseline x86-64 and ran the eight Double
/// lanes as four SSE pairs.
/// - Thread: audio
@_noAllocation @_noLocks
public func twoPoleLowPassLanes(turns: SIMD8<Double>, q: SIMD8<Float>, passbandGain: SIMD8<Float>)
    -> (sine: SIMD8<Float>, cosine: SIMD8<Float>, b0: SIMD8<Float>, b1: SIMD8<Float>, a1: SIMD8<Float>, a2: SIMD8<Float>) {
    let (sine, cosine) = VoiceFilter.twoPoleSines(turns: turns)
    let terms = VoiceFilter.twoPoleTerms(sine: sine, cosine: cosine, q: q, passbandGain: passbandGain)
    return (sine, cosine, terms.lowPassB0, terms.lowPassB1, terms.a1, terms.a2)
}

/// Adds `frameCount` frames of eight lanes into the lane buses, each through its own ramped gains,
/// and with `filtering` through `filter` first (a lane's filter may pass its input through):
/// filtering in the mixing pass saves storing the block and loading it again. With `sendsReverb`
/// or `sendsChorus` the filtered lanes also go, through their send gains, into `busReverb` or
/// `busChorus`: a group whose lanes send nothing pays nothing for the sends. Each bus's frames are
/// the sum of the group's and those of its source (`leftFrom` for `busLeft`, ...): the bus itself,
/// or zeros for the first group mixed into it, which saves clearing it first (the same bits: a sum
/// with +0). The caller gathers and stores the filter lanes: built here from scattered scalars, the
/// optimiser splits the vectors.
/// - Thread: audio
@_noAllocation @_noLocks
public func mixLanes(_ frames: UnsafePointer<SIMD8<Float>>, frameCount: Int, gains: UnsafePointer<LaneGains>,
                     filtering: Bool, filter: inout VoiceFilterLanes, sendsReverb: Bool, sendsChorus: Bool,
                     busLeft: UnsafeMutablePointer<SIMD8<Float>>, busRight: UnsafeMutablePointer<SIMD8<Float>>,
                     busReverb: UnsafeMutablePointer<SIMD8<Float>>, busChorus: UnsafeMutablePointer<SIMD8<Float>>,
                     leftFrom: UnsafePointer<SIMD8<Float>>, rightFrom: UnsafePointer<SIMD8<Float>>,
                     reverbFrom: UnsafePointer<SIMD8<Float>>, chorusFrom: UnsafePointer<SIMD8<Float>>) {
    let buses = (busLeft, busRight, busReverb, busChorus), sources = (leftFrom, rightFrom, reverbFrom, chorusFrom)
    // One specialised loop per combination, so that none tests a flag per frame.
    switch (filtering, sendsReverb, sendsChorus) {
    case (false, false, false): mixLanes(filtering: false, reverb: false, chorus: false, frames, frameCount, gains, &filter, buses, sources)
    case (true, false, false): mixLanes(filtering: true, reverb: false, chorus: false, frames, frameCount, gains, &filter, buses, sources)
    case (false, true, false): mixLanes(filtering: false, reverb: true, chorus: false, frames, frameCount, gains, &filter, buses, sources)
    case (true, true, false): mixLanes(filtering: true, reverb: true, chorus: false, frames, frameCount, gains, &filter, buses, sources)
    case (false, _, true): mixLanes(filtering: false, reverb: true, chorus: true, frames, frameCount, gains, &filter, buses, sources)
    case (true, _, true): mixLanes(filtering: true, reverb: true, chorus: true, frames, frameCount, gains, &filter, buses, sources)
    }
}

/// The four lane buses: left, right, reverb and chorus.
typealias LaneBusPointers = (UnsafeMutablePointer<SIMD8<Float>>, UnsafeMutablePointer<SIMD8<Float>>,
                             UnsafeMutablePointer<SIMD8<Float>>, UnsafeMutablePointer<SIMD8<Float>>)
/// What each of the four buses' sums starts from, in the same order.
typealias LaneBusSources = (UnsafePointer<SIMD8<Float>>, UnsafePointer<SIMD8<Float>>, UnsafePointer<SIMD8<Float>>, UnsafePointer<SIMD8<Float>>)

@inline(__always) @_noAllocation @_noLocks
func mixLanes(filtering: Bool, reverb: Bool, chorus: Bool, _ frames: UnsafePointer<SIMD8<Float>>, _ frameCount: Int,
              _ gains: UnsafePointer<LaneGains>, _ filter: inout VoiceFilterLanes, _ buses: LaneBusPointers, _ sources: LaneBusSources) {
    let (busLeft, busRight, busReverb, busChorus) = buses
    let (leftFrom, rightFrom, reverbFrom, chorusFrom) = sources
    var leftGain = gains.pointee.leftStart, rightGain = gains.pointee.rightStart
    let leftStep = gains.pointee.leftStep, rightStep = gains.pointee.rightStep
    var reverbGain = gains.pointee.reverbStart, chorusGain = gains.pointee.chorusStart
    let reverbStep = gains.pointee.reverbStep, chorusStep = gains.pointee.chorusStep
    let b0 = filter.b0, b1 = filter.b1, b2 = filter.b2, negativeA1 = -filter.a1, negativeA2 = -filter.a2
    var z1 = filter.z1, z2 = filter.z2
    for frame in 0..<frameCount {
        leftGain += leftStep
        rightGain += rightStep
        var values = frames[frame]
        if filtering {
            // Transposed direct form II. A block waits on the chain from one frame's output to the
            // next's, so it holds two operations; the input's terms are summed beside it.
            let output = multiplyAdd(b0, values, z1)
            z1 = multiplyAdd(negativeA1, output, multiplyAdd(b1, values, z2))
            z2 = multiplyAdd(negativeA2, output, b2 * values)
            values = output
        }
        busLeft[frame] = multiplyAdd(values, leftGain, leftFrom[frame])
        busRight[frame] = multiplyAdd(values, rightGain, rightFrom[frame])
        if reverb {
            reverbGain += reverbStep
            busReverb[frame] = multiplyAdd(values, reverbGain, reverbFrom[frame])
        }
        if chorus {
            chorusGain += chorusStep
            busChorus[frame] = multiplyAdd(values, chorusGain, chorusFrom[frame])
        }
    }
    filter.z1 = z1
    filter.z2 = z2
}
