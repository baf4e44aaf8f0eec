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
    public static var defaultVoiceCount: Int { @inlinable @_noAllocation @_noLocks get { 3 } }
    public static var defaultRateHertz: Double { @inlinable @_noAllocation @_noLocks get { 0.3 } }
    public static var defaultDepthMilliseconds: Double { @inlinable @_noAllocation @_noLocks get { 8 } }
    /// The most voices; their pan gains are kept in fixed storage.
    public static var maxVoiceCount: Int { @inlinable @_noAllocation @_noLocks get { 8 } }
    /// The shortest delay a tap reads at: two frames, so the linear interpolation never reads the
    /// frame being written.
    public static var minimumDelayFrames: Double { @inlinable @_noAllocation @_noLocks get { 2 } }

    public let sampleRate: Double
    @usableFromInline let line: UnsafeMutablePointer<Float>
    /// A power of two, longer than the deepest delay.
    @usableFromInline let lineLength: Int
    @usableFromInline let voicePans: UnsafeMutablePointer<(left: Float, right: Float)>
    @usableFromInline var voiceCount = 0
    @usableFromInline var cyclesPerFrame: Double = 0
    @usableFromInline var depthFrames: Double = 0
    /// The output gain of the voices together.
    public var level: Float

    /// - Thread: any but the audio thread: allocates.
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
        set(voiceCount: voiceCount, rateHertz: rateHertz, depthMilliseconds: depthMilliseconds)
    }

    /// Frees the storage. Call once, when no thread uses the chorus any more.
    /// - Thread: any but the audio thread.
    public func deallocate() {
        line.deallocate()
        voicePans.deallocate()
    }

    /// Sets the voices (1…8), the LFO rate (0.1…5 Hz) and the depth (0…50 ms), clamped.
    /// - Thread: the owner's (audio); real-time safe.
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
    public var idleFrameCount: Int { @inlinable @_noAllocation @_noLocks get { lineLength } }

    /// Empties the delay line. The output is exactly as if it had been fed silence for
    /// `idleFrameCount` frames.
    /// - Thread: the owner's (audio); real-time safe.
    @inlinable @_noAllocation @_noLocks
    public mutating func reset() { line.update(repeating: 0, count: lineLength) }

    /// Runs `frameCount` frames of `input`, the first of which is frame `frameTime` of the
    /// stream, and adds the chorus into `left` and `right`.
    /// - Thread: the owner's (audio); real-time safe.
    @inlinable @_noAllocation @_noLocks
    public func process(_ input: UnsafePointer<Float>, addingTo left: UnsafeMutablePointer<Float>,
                        right: UnsafeMutablePointer<Float>, frameCount: Int, frameTime: UInt64) {
        let mask = lineLength - 1
        let phaseSpacing = 1 / Double(voiceCount)
        let halfDepth = depthFrames * 0.5
        for frame in 0..<frameCount {
            let time = frameTime &+ UInt64(frame)
            let write = Int(time & UInt64(mask))
            line[write] = input[frame]
            let cycles = Double(time) * cyclesPerFrame
            let basePhase = cycles - Double(UInt64(cycles))  // cycles ≥ 0
            var sumLeft: Float = 0, sumRight: Float = 0
            for voice in 0..<voiceCount {
                var phase = basePhase + Double(voice) * phaseSpacing
                if phase >= 1 { phase -= 1 }
                let delay = Chorus.minimumDelayFrames + halfDepth * (1 + sineOfTurns(phase))
                let whole = Int(delay)
                let fraction = Float(delay - Double(whole))
                let newer = line[(write - whole) & mask], older = line[(write - whole - 1) & mask]
                let tap = newer + (older - newer) * fraction
                sumLeft += tap * voicePans[voice].left
                sumRight += tap * voicePans[voice].right
            }
            left[frame] += sumLeft * level
            right[frame] += sumRight * level
        }
    }
}
