/// A voice's low-frequency oscillator, -1…1, starting at 0 and rising after its delay, then
/// reaching its full depth over its fade: SF2's modulation and vibrato LFOs are triangles, SFZ's
/// are sines. Stepped at control rate: a block at a time.
public struct VoiceLFO: Sendable {
    /// The wave.
    /// - Thread: any.
    public enum Shape: UInt8, Sendable, BitwiseCopyable {
        /// SF2's: 0 → 1 over the first quarter, 1 → -1 over the middle half, -1 → 0 over the last.
        case triangle = 0
        /// SFZ's.
        case sine = 1
    }

    @usableFromInline var phase: Float = 0          // turns, 0 ..< 1
    @usableFromInline var increment: Float = 0      // turns per frame
    @usableFromInline var delayFrames: Int32 = 0
    @usableFromInline var fadeLevel: Float = 1      // 0 → 1 over the fade, after the delay
    @usableFromInline var fadeStep: Float = 0       // per frame
    @usableFromInline var shape = Shape.triangle

    /// - Thread: any.
    public init() {}

    /// - Thread: audio.
    @inlinable @_noAllocation @_noLocks
    public mutating func start(delay: Double, frequency: Double, sampleRate: Double, fade: Double = 0, shape: Shape = .triangle) {
        phase = 0
        delayFrames = Int32(min(max(delay * sampleRate, 0), Double(Int32.max)))
        increment = Float(min(max(frequency, 0), sampleRate / 4) / sampleRate)
        fadeLevel = fade > 0 ? 0 : 1
        fadeStep = fade > 0 ? Float(1 / (fade * sampleRate)) : 0
        self.shape = shape
    }

    /// The value now, then advances `frameCount` frames.
    /// - Thread: audio.
    @inlinable @_noAllocation @_noLocks
    public mutating func valueThenAdvance(by frameCount: Int) -> Float {
        if delayFrames > 0 {
            delayFrames -= Int32(min(Int(delayFrames), frameCount))
            return 0
        }
        let wave: Float
        switch shape {
        case .triangle: wave = phase < 0.25 ? 4 * phase : (phase < 0.75 ? 2 - 4 * phase : 4 * phase - 4)
        case .sine: wave = Float(sineOfTurns(Double(phase)))
        }
        let value = wave * fadeLevel
        if fadeLevel < 1 { fadeLevel = min(1, fadeLevel + fadeStep * Float(frameCount)) }
        phase += increment * Float(frameCount)
        while phase >= 1 { phase -= 1 }  // at most a few turns: the frequency is capped at rate/4
        return value
    }
}
