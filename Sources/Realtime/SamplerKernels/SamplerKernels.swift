// The sampler's per-frame loops: reading eight voices' samples and filtering and mixing them. This
// one file is compiled twice, as module `SamplerKernels` for baseline x86-64 (SSE2) and, through a
// symbolic link, as `SamplerKernelsAVX2` with AVX2 and FMA enabled and FUSED_MULTIPLY_ADD and
// WIDE_VECTORS (256-bit registers) defined; `SamplerKernelVariant` (module Render) picks one at start
// from what the CPU supports. Nothing here may call code outside this file that is not inlined into
// it: a shared out-of-line helper would be compiled for one target and could run on a CPU without
// its instructions.
import DSP

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
/// bits scaling each frame would, one multiply a block rather than one a frame. No lane may come
/// within two frames of its sample's end or loop end (the caller checks).
/// - Thread: audio
@_noAllocation @_noLocks
public func readLanes(cubic: Bool, encoding: SampleEncoding, bases: UnsafePointer<UnsafeRawPointer>,
                      positions: UnsafePointer<LanePositions>, into output: UnsafeMutablePointer<SIMD8<Float>>, frameCount: Int) {
    // One specialised loop per encoding and interpolation, so that none tests either per frame.
    switch (encoding, cubic) {
    case (.int16, true): readWordLanesCubic(bases, positions, output, frameCount)
    case (.int16, false): readWordLanesLinear(bases, positions, output, frameCount)
    case (.float32, true): readFloatLanesCubic(bases, positions, output, frameCount)
    case (.float32, false): readFloatLanesLinear(bases, positions, output, frameCount)
    }
}

// The four loops, each a function of its own around one inlined copy of the reader with its two
// flags constant. Inlined together into one caller, the optimiser stopped inlining them and merged
// the calls into one, flags tested every frame.
@inline(never) @_noAllocation @_noLocks
func readWordLanesCubic(_ bases: UnsafePointer<UnsafeRawPointer>, _ positions: UnsafePointer<LanePositions>,
                        _ output: UnsafeMutablePointer<SIMD8<Float>>, _ frameCount: Int) {
    readAllLanes(words: true, cubic: true, bases, positions, output, frameCount)
}

@inline(never) @_noAllocation @_noLocks
func readWordLanesLinear(_ bases: UnsafePointer<UnsafeRawPointer>, _ positions: UnsafePointer<LanePositions>,
                         _ output: UnsafeMutablePointer<SIMD8<Float>>, _ frameCount: Int) {
    readAllLanes(words: true, cubic: false, bases, positions, output, frameCount)
}

@inline(never) @_noAllocation @_noLocks
func readFloatLanesCubic(_ bases: UnsafePointer<UnsafeRawPointer>, _ positions: UnsafePointer<LanePositions>,
                         _ output: UnsafeMutablePointer<SIMD8<Float>>, _ frameCount: Int) {
    readAllLanes(words: false, cubic: true, bases, positions, output, frameCount)
}

@inline(never) @_noAllocation @_noLocks
func readFloatLanesLinear(_ bases: UnsafePointer<UnsafeRawPointer>, _ positions: UnsafePointer<LanePositions>,
                          _ output: UnsafeMutablePointer<SIMD8<Float>>, _ frameCount: Int) {
    readAllLanes(words: false, cubic: false, bases, positions, output, frameCount)
}

/// All eight lanes: one pass of 256-bit vectors, or two of 128-bit ones.
@inline(__always)
func readAllLanes(words: Bool, cubic: Bool, _ bases: UnsafePointer<UnsafeRawPointer>, _ positions: UnsafePointer<LanePositions>,
                  _ output: UnsafeMutablePointer<SIMD8<Float>>, _ frameCount: Int) {
    #if WIDE_VECTORS
    readEightLanes(words: words, cubic: cubic, bases: bases, positions: positions, into: output, frameCount: frameCount)
    #else
    for half in 0..<2 {
        readFourLanes(words: words, cubic: cubic, half: half, bases: bases, positions: positions, into: output, frameCount: frameCount)
    }
    #endif
}

/// The reader's loop for 128-bit vectors, one copy per interpolation so that neither tests the
/// other's flag every frame. It runs four lanes at a time (`half` 0: lanes 0–3, 1: lanes 4–7): eight
/// lanes' bases, positions and samples at once overflow the registers, and the spills cost more than
/// the second pass. Nothing here waits on a long chain, so four lanes lose no overlap.
@inline(__always)
func readFourLanes(words: Bool, cubic: Bool, half: Int, bases: UnsafePointer<UnsafeRawPointer>,
                                         positions: UnsafePointer<LanePositions>,
                                         into output: UnsafeMutablePointer<SIMD8<Float>>, frameCount: Int) {
    let first = half * 4
    let b0 = bases[first], b1 = bases[first + 1], b2 = bases[first + 2], b3 = bases[first + 3]
    var fraction = half == 0 ? positions.pointee.fraction.lowHalf : positions.pointee.fraction.highHalf
    let fractionStep = half == 0 ? positions.pointee.fractionStep.lowHalf : positions.pointee.fractionStep.highHalf
    let wholeStep = half == 0 ? positions.pointee.wholeStep.lowHalf : positions.pointee.wholeStep.highHalf
    var whole = SIMD4<UInt32>()
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
        // Lane k's samples k-1 … k+2 around its position, one unaligned load per lane.
        let ym1: SIMD4<Float>, y0: SIMD4<Float>, y1: SIMD4<Float>, y2: SIMD4<Float>
        if words {
            // Transposed as words by unpacking (SSE2 has no widening load, and widening each window
            // first, then transposing Floats, takes a fifth more instructions), then widened.
            let w0 = wordWindow(b0, whole[0]), w1 = wordWindow(b1, whole[1])
            let w2 = wordWindow(b2, whole[2]), w3 = wordWindow(b3, whole[3])
            let pairs01 = unsafeBitCast(SIMD8<Int16>(w0[0], w1[0], w0[1], w1[1], w0[2], w1[2], w0[3], w1[3]), to: SIMD4<Int32>.self)
            let pairs23 = unsafeBitCast(SIMD8<Int16>(w2[0], w3[0], w2[1], w3[1], w2[2], w3[2], w2[3], w3[3]), to: SIMD4<Int32>.self)
            let early = unsafeBitCast(SIMD4<Int32>(pairs01[0], pairs23[0], pairs01[1], pairs23[1]), to: SIMD8<Int16>.self)
            let late = unsafeBitCast(SIMD4<Int32>(pairs01[2], pairs23[2], pairs01[3], pairs23[3]), to: SIMD8<Int16>.self)
            ym1 = SIMD4<Float>(SIMD4<Int32>(truncatingIfNeeded: early.lowHalf))
            y0 = SIMD4<Float>(SIMD4<Int32>(truncatingIfNeeded: early.highHalf))
            y1 = SIMD4<Float>(SIMD4<Int32>(truncatingIfNeeded: late.lowHalf))
            y2 = SIMD4<Float>(SIMD4<Int32>(truncatingIfNeeded: late.highHalf))
        } else {
            let r0 = window(b0, whole[0]), r1 = window(b1, whole[1]), r2 = window(b2, whole[2]), r3 = window(b3, whole[3])
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
/// The reader's loop for 256-bit vectors: all eight lanes in one pass. Lane k's window and lane k+4's
/// share a register (one in each 128-bit half), so the transpose and the interpolation serve eight
/// lanes for about the instructions four cost in the 128-bit loop.
@inline(__always)
func readEightLanes(words: Bool, cubic: Bool, bases: UnsafePointer<UnsafeRawPointer>,
                                          positions: UnsafePointer<LanePositions>,
                                          into output: UnsafeMutablePointer<SIMD8<Float>>, frameCount: Int) {
    let b0 = bases[0], b1 = bases[1], b2 = bases[2], b3 = bases[3]
    let b4 = bases[4], b5 = bases[5], b6 = bases[6], b7 = bases[7]
    var fraction = positions.pointee.fraction
    let fractionStep = positions.pointee.fractionStep
    let wholeStep = positions.pointee.wholeStep
    var whole = SIMD8<UInt32>()
    let one = SIMD8<Float>(repeating: 1)
    let frameBytes = words ? 2 : 4
    @inline(__always) func windows(_ low: UnsafeRawPointer, _ lowWhole: UInt32,
                                   _ high: UnsafeRawPointer, _ highWhole: UInt32) -> SIMD8<Float> {
        SIMD8(lowHalf: loadWindow(low + Int(lowWhole) * frameBytes, words: words),
              highHalf: loadWindow(high + Int(highWhole) * frameBytes, words: words))
    }
    // The windows of a frame are loaded at the end of the frame before: reaching the transpose
    // through the loop rather than straight from the loads, they are shuffled in registers, where
    // loaded in the same pass the optimiser re-reads them element by element (more instructions).
    var r0 = windows(b0, 0, b4, 0), r1 = windows(b1, 0, b5, 0)
    var r2 = windows(b2, 0, b6, 0), r3 = windows(b3, 0, b7, 0)
    for frame in 0..<frameCount {
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
            output[frame] = catmullRom(ym1, y0, y1, y2, at: fraction)
        } else {
            output[frame] = multiplyAdd(y1 - y0, fraction, y0)
        }
        fraction += fractionStep
        let carry = fraction .>= one
        fraction -= SIMD8<Float>().replacing(with: 1, where: carry)
        whole &+= wholeStep
        whole.replace(with: whole &+ 1, where: carry)
        guard frame + 1 < frameCount else { break }
        r0 = windows(b0, whole[0], b4, whole[4]); r1 = windows(b1, whole[1], b5, whole[5])
        r2 = windows(b2, whole[2], b6, whole[6]); r3 = windows(b3, whole[3], b7, whole[7])
    }
}
#endif

/// Adds `frameCount` frames of eight lanes into the lane buses, each through its own ramped gains,
/// and with `filtering` through `filter` first (a lane's filter may pass its input through):
/// filtering in the mixing pass saves storing the block and loading it again. With `sendsReverb`
/// or `sendsChorus` the filtered lanes also go, through their send gains, into `busReverb` or
/// `busChorus`: a group whose lanes send nothing pays nothing for the sends. The caller gathers and
/// stores the filter lanes: built here from scattered scalars, the optimiser splits the vectors.
/// - Thread: audio
@_noAllocation @_noLocks
public func mixLanes(_ frames: UnsafePointer<SIMD8<Float>>, frameCount: Int, gains: UnsafePointer<LaneGains>,
                     filtering: Bool, filter: inout VoiceFilterLanes, sendsReverb: Bool, sendsChorus: Bool,
                     busLeft: UnsafeMutablePointer<SIMD8<Float>>, busRight: UnsafeMutablePointer<SIMD8<Float>>,
                     busReverb: UnsafeMutablePointer<SIMD8<Float>>, busChorus: UnsafeMutablePointer<SIMD8<Float>>) {
    // One specialised loop per combination, so that none tests a flag per frame.
    switch (filtering, sendsReverb, sendsChorus) {
    case (false, false, false): mixLanes(filtering: false, reverb: false, chorus: false, frames, frameCount, gains, &filter, busLeft, busRight, busReverb, busChorus)
    case (true, false, false): mixLanes(filtering: true, reverb: false, chorus: false, frames, frameCount, gains, &filter, busLeft, busRight, busReverb, busChorus)
    case (false, true, false): mixLanes(filtering: false, reverb: true, chorus: false, frames, frameCount, gains, &filter, busLeft, busRight, busReverb, busChorus)
    case (true, true, false): mixLanes(filtering: true, reverb: true, chorus: false, frames, frameCount, gains, &filter, busLeft, busRight, busReverb, busChorus)
    case (false, _, true): mixLanes(filtering: false, reverb: true, chorus: true, frames, frameCount, gains, &filter, busLeft, busRight, busReverb, busChorus)
    case (true, _, true): mixLanes(filtering: true, reverb: true, chorus: true, frames, frameCount, gains, &filter, busLeft, busRight, busReverb, busChorus)
    }
}

@inline(__always) @_noAllocation @_noLocks
func mixLanes(filtering: Bool, reverb: Bool, chorus: Bool, _ frames: UnsafePointer<SIMD8<Float>>, _ frameCount: Int,
              _ gains: UnsafePointer<LaneGains>, _ filter: inout VoiceFilterLanes,
              _ busLeft: UnsafeMutablePointer<SIMD8<Float>>, _ busRight: UnsafeMutablePointer<SIMD8<Float>>,
              _ busReverb: UnsafeMutablePointer<SIMD8<Float>>, _ busChorus: UnsafeMutablePointer<SIMD8<Float>>) {
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
        busLeft[frame] = multiplyAdd(values, leftGain, busLeft[frame])
        busRight[frame] = multiplyAdd(values, rightGain, busRight[frame])
        if reverb {
            reverbGain += reverbStep
            busReverb[frame] = multiplyAdd(values, reverbGain, busReverb[frame])
        }
        if chorus {
            chorusGain += chorusStep
            busChorus[frame] = multiplyAdd(values, chorusGain, busChorus[frame])
        }
    }
    filter.z1 = z1
    filter.z2 = z2
}
