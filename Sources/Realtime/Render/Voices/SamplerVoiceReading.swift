import DSP
import Synchronization

// The scalar read of a voice's sample, for what the lane kernels do not take, and the cubic
// interpolation both use.
extension SamplerVoice {
    /// Reads up to `frameCount` interpolated frames into `output`, at the pool's stored scale (as
    /// the kernels read them: the sampler's gains carry `SampleEncoding.scale`); returns how many
    /// (fewer when an unlooped sample ends).
    @_noAllocation @_noLocks
    mutating func readSample(into output: UnsafeMutablePointer<Float>, stride: Int, frameCount: Int, increment: Double,
                             interpolation: Interpolation) -> Int {
        guard let samples else { return 0 }
        var index = 0
        while index < frameCount {
            let boundary = isLooping ? loopEnd : end
            let whole = Int(position)
            if whole >= boundary - 2 {
                if !isLooping && whole >= end - 1 { return index }
                // Within two frames of the loop end: read across the wrap point.
                output[index * stride] = sampleAcrossLoop(samples, whole: whole, fraction: Float(position - Double(whole)), interpolation)
                position += increment
                wrapIntoLoop()
                index += 1
                continue
            }
            // Fast path: as many frames as stay clear of the boundary, in 32.32 fixed point —
            // cheaper than converting a Double to an index and a fraction every frame.
            let clear = Int((Double(boundary - 2) - position) / increment)
            let run = max(1, min(frameCount - index, clear))
            let step = UInt64(increment * 4_294_967_296)
            var phase = UInt64(position * 4_294_967_296)
            let scale: Float = 1 / 4_294_967_296
            if interpolation.isCubic {
                for offset in index ..< index + run {
                    let whole = Int(truncatingIfNeeded: phase >> 32)
                    let fraction = Float(UInt32(truncatingIfNeeded: phase)) * scale
                    output[offset * stride] = cubic(samples.stored(whole - 1), samples.stored(whole), samples.stored(whole + 1),
                                                    samples.stored(whole + 2), fraction)
                    phase &+= step
                }
            } else {
                for offset in index ..< index + run {
                    let whole = Int(truncatingIfNeeded: phase >> 32)
                    let fraction = Float(UInt32(truncatingIfNeeded: phase)) * scale
                    output[offset * stride] = samples.stored(whole) + (samples.stored(whole + 1) - samples.stored(whole)) * fraction
                    phase &+= step
                }
            }
            // Keep the Double position exact: advance it by the same fixed-point steps.
            position = Double(phase) / 4_294_967_296
            index += run
        }
        return frameCount
    }

    /// Whether the group's SIMD reader takes this voice's loop (`LanePositions`): it loops, and a
    /// frame's step is shorter than the loop by two frames or more, so that one step back by the
    /// loop's length brings any position past the end inside the loop. A shorter loop (a few
    /// frames, played octaves up) is read by `readSample`.
    var loopsInReader: Bool {
        @_noAllocation @_noLocks get { isLooping && Double(loopEnd &- loopStart) >= lastIncrement + 2 }
    }

    /// Writes the five frames that the reader's two windows across the loop end read, as
    /// `sampleAcrossLoop` reads them: the loop's last three frames, then its first two. Stored as
    /// the pool stores them, for the kernel's loads; `stitch` holds
    /// `VoiceLaneWorkspace.stitchByteCount` bytes.
    @_noAllocation @_noLocks
    func stitchLoop(_ samples: SampleFrames, into stitch: UnsafeMutableRawPointer) {
        for index in 0..<5 {
            let frame = index < 3 ? loopEnd - 3 + index : loopStart + (index - 3)
            switch samples.encoding {
            case .int16:
                stitch.storeBytes(of: samples.base.load(fromByteOffset: 2 * frame, as: Int16.self), toByteOffset: 2 * index, as: Int16.self)
            case .float32:
                stitch.storeBytes(of: samples.base.load(fromByteOffset: 4 * frame, as: Float.self), toByteOffset: 4 * index, as: Float.self)
            }
        }
    }

    /// Moves the position on `frameCount` frames at `lastIncrement`, as the SIMD reader read them:
    /// back by the loop's length each time it passes the end of a loop the reader takes. (Only a
    /// loop the reader takes can have been passed: the group's runs stop short of any other.)
    @_noAllocation @_noLocks
    mutating func advance(by frameCount: Int) {
        position += Double(frameCount) * lastIncrement
        wrapIntoLoop()
    }

    /// Brings a looping voice's position back into its loop: as many loop lengths as it passed,
    /// since a step longer than a short loop (a few frames, played octaves up) would otherwise
    /// leave the loop for good and read on past it.
    @_noAllocation @_noLocks
    mutating func wrapIntoLoop() {
        while isLooping && position >= Double(loopEnd) { position -= Double(loopEnd - loopStart) }
    }

    /// A sample read near the loop end: frames at or past `loopEnd` come from the loop, as many
    /// loop lengths back as they are past it (a step longer than a loop of a few frames, played
    /// octaves up, can leave the position a loop or more past the end).
    @_noAllocation @_noLocks
    func sampleAcrossLoop(_ samples: SampleFrames, whole: Int, fraction: Float, _ interpolation: Interpolation) -> Float {
        func at(_ frame: Int) -> Float {
            isLooping && frame >= loopEnd ? samples.stored(loopStart + (frame - loopEnd) % (loopEnd - loopStart)) : samples.stored(frame)
        }
        if !interpolation.isCubic { return at(whole) + (at(whole + 1) - at(whole)) * fraction }
        return cubic(at(whole - 1), at(whole), at(whole + 1), at(whole + 2), fraction)
    }
}

/// 4-point, 3rd-order Catmull-Rom (cubic Hermite) interpolation between `y0` and `y1`, factored
/// to nine floating-point operations.
@inline(__always) @_noAllocation @_noLocks
func cubic(_ ym1: Float, _ y0: Float, _ y1: Float, _ y2: Float, _ t: Float) -> Float {
    let slope = (y1 - ym1) * 0.5
    let v = y0 - y1
    let w = slope + v
    let a = w + v + (y2 - y0) * 0.5
    let b = w + a
    return ((a * t - b) * t + slope) * t + y0
}
