/// A modulated-delay chorus with one (mono) input and a stereo output, the kind General MIDI's
/// CC93 sends to: `voiceCount` taps read one delay line, each at a delay swept by its own sine
/// LFO (the LFOs spread evenly in phase), from `minimumDelayFrames` to that plus the depth; the
/// taps are spread across the stereo field from left to right. The output is wet only, added to
/// the caller's buffers.
///
/// Everything the output depends on is a function of the absolute frame time the caller passes
/// (the LFO phase, the delay line's write position), never of how the frames were split into
/// blocks: a block rendered in one call or in ten gives the same samples, and a stretch the
/// caller skips because the input was silent long enough (`idleFrameCount`) loses nothing.
public struct Chorus: @unchecked Sendable {  // raw storage, used by one thread at a time
    /// FluidSynth 2.3's defaults (`synth.chorus.*`): three voices, 0.3 Hz, 8 ms deep.
    /// - Thread: any.
    public static var defaultVoiceCount: Int { @inlinable @_noAllocation @_noLocks get { 3 } }
    /// - Thread: any.
    public static var defaultRateHertz: Double { @inlinable @_noAllocation @_noLocks get { 0.3 } }
    /// - Thread: any.
    public static var defaultDepthMilliseconds: Double { @inlinable @_noAllocation @_noLocks get { 8 } }
    /// The most voices; their pan gains are kept in fixed storage.
    /// - Thread: any.
    public static var maxVoiceCount: Int { @inlinable @_noAllocation @_noLocks get { 8 } }
    /// How often the LFOs are evaluated: every 16 frames of the stream (on multiples of 16), the
    /// delays interpolated linearly between (a sine of 0.1-5 Hz is a straight line to within 1e-4
    /// frames over 16 frames), which saves the sines most of the chorus's cost.
    /// - Thread: any.
    public static var lfoStepFrames: Int { @inlinable @_noAllocation @_noLocks get { 16 } }
    /// The shortest delay a tap reads at: two frames, so the linear interpolation never reads the
    /// frame being written.
    /// - Thread: any.
    public static var minimumDelayFrames: Double { @inlinable @_noAllocation @_noLocks get { 2 } }

    public let sampleRate: Double
    @usableFromInline let line: UnsafeMutablePointer<Float>
    /// A power of two, longer than the deepest delay.
    @usableFromInline let lineLength: Int
    @usableFromInline let voicePans: UnsafeMutablePointer<(left: Float, right: Float)>
    /// Scratch for one LFO step: each voice's delay on the step's multiple of 16, and its change per frame.
    @usableFromInline let stepDelays: UnsafeMutablePointer<(start: Double, slope: Double)>
    @usableFromInline var voiceCount = 0
    @usableFromInline var cyclesPerFrame: Double = 0
    @usableFromInline var depthFrames: Double = 0
    /// The output gain of the voices together.
    /// - Thread: audio.
    public var level: Float

    /// - Thread: control. Not real-time safe: allocates.
    public init(sampleRate: Double, voiceCount: Int = Chorus.defaultVoiceCount, rateHertz: Double = Chorus.defaultRateHertz,
                depthMilliseconds: Double = Chorus.defaultDepthMilliseconds, level: Float = 1) {
        self.sampleRate = sampleRate
        self.level = level
        // Room for the deepest depth the setters allow (50 ms) at this rate, and the interpolation.
        let longest = Int((0.05 * sampleRate).rounded(.up)) + 4
        var length = 1
        while length < longest { length <<= 1 }
        lineLength = length
        line = .allocate(capacity: length)
        line.initialize(repeating: 0, count: length)
        voicePans = .allocate(capacity: Chorus.maxVoiceCount)
        voicePans.initialize(repeating: (0, 0), count: Chorus.maxVoiceCount)
        stepDelays = .allocate(capacity: Chorus.maxVoiceCount)
        stepDelays.initialize(repeating: (0, 0), count: Chorus.maxVoiceCount)
        set(voiceCount: voiceCount, rateHertz: rateHertz, depthMilliseconds: depthMilliseconds)
    }

    /// Frees the storage. Call once, when no thread uses the chorus any more.
    /// - Thread: stopped. Not real-time safe: frees.
    public func deallocate() {
        line.deallocate()
        voicePans.deallocate()
        stepDelays.deallocate()
    }

    /// Sets the voices (1…8), the LFO rate (0.1…5 Hz) and the depth (0…50 ms), clamped.
    /// - Thread: audio. Real-time safe.
    @inlinable @_noAllocation @_noLocks
    public mutating func set(voiceCount: Int, rateHertz: Double, depthMilliseconds: Double) {
        self.voiceCount = min(max(voiceCount, 1), Chorus.maxVoiceCount)
        cyclesPerFrame = min(max(rateHertz, 0.1), 5) / sampleRate
        depthFrames = min(max(depthMilliseconds, 0), 50) / 1_000 * sampleRate
        // Constant-power pans from hard left to hard right (one voice: the centre), scaled so that
        // uncorrelated voices sum to `level` in power.
        // (1/√n via exp2/log2, as the reverb: `squareRoot()` is an opaque call to the real-time checker.)
        let normalisation = fastExp2(-0.5 * log2Approximation(Float(self.voiceCount)))
        for voice in 0..<self.voiceCount {
            let position = self.voiceCount == 1 ? 0.5 : Double(voice) / Double(self.voiceCount - 1)
            voicePans[voice] = (Float(sineOfTurns(position * 0.25 + 0.25)) * normalisation,
                                Float(sineOfTurns(position * 0.25)) * normalisation)
        }
    }

    /// How many frames of silent input leave the delay line holding only zeros: after that the
    /// output is exactly zero, and the caller may skip the chorus until the input sounds again.
    /// - Thread: audio.
    public var idleFrameCount: Int { @inlinable @_noAllocation @_noLocks get { lineLength } }

    /// Empties the delay line. The output is exactly as if it had been fed silence for
    /// `idleFrameCount` frames.
    /// - Thread: audio. Real-time safe.
    @inlinable @_noAllocation @_noLocks
    public mutating func reset() { line.update(repeating: 0, count: lineLength) }

    /// Runs `frameCount` frames of `input`, the first of which is frame `frameTime` of the
    /// stream, and adds the chorus into `left` and `right`.
    /// - Thread: audio. Real-time safe.
    @inlinable @_noAllocation @_noLocks
    public func process(_ input: UnsafePointer<Float>, addingTo left: UnsafeMutablePointer<Float>,
                        right: UnsafeMutablePointer<Float>, frameCount: Int, frameTime: UInt64) {
        let mask = lineLength - 1
        let step = UInt64(Chorus.lfoStepFrames)
        var frame = 0
        while frame < frameCount {
            // One LFO step: from the multiple of 16 at or before this frame to the next.
            let time = frameTime &+ UInt64(frame)
            let stepStart = time - time % step
            let stepEnd = min(frameCount, frame + Int(stepStart + step - time))
            for voice in 0..<voiceCount {
                let start = delay(voice: voice, at: stepStart), end = delay(voice: voice, at: stepStart + step)
                stepDelays[voice] = (start, (end - start) / Double(step))
            }
            // Each frame's delay from the step's start and its own place in the step, never summed
            // from the frame before: a step split between two calls gives the same samples.
            let firstInStep = Int(time - stepStart)
            for offset in 0 ..< stepEnd - frame {
                let write = Int((time &+ UInt64(offset)) & UInt64(mask))
                line[write] = input[frame + offset]
                var sumLeft: Float = 0, sumRight: Float = 0
                for voice in 0..<voiceCount {
                    let delay = stepDelays[voice].start + stepDelays[voice].slope * Double(firstInStep + offset)
                    let whole = Int(delay)
                    let fraction = Float(delay - Double(whole))
                    let newer = line[(write - whole) & mask], older = line[(write - whole - 1) & mask]
                    let tap = newer + (older - newer) * fraction
                    sumLeft += tap * voicePans[voice].left
                    sumRight += tap * voicePans[voice].right
                }
                left[frame + offset] += sumLeft * level
                right[frame + offset] += sumRight * level
            }
            frame = stepEnd
        }
    }

    /// Voice `voice`'s delay at frame `time` of the stream, in frames.
    @inlinable @_noAllocation @_noLocks
    func delay(voice: Int, at time: UInt64) -> Double {
        let cycles = Double(time) * cyclesPerFrame
        var phase = cycles - Double(UInt64(cycles)) + Double(voice) / Double(voiceCount)  // cycles ≥ 0
        if phase >= 1 { phase -= 1 }
        return Chorus.minimumDelayFrames + depthFrames * 0.5 * (1 + sineOfTurns(phase))
    }
}
