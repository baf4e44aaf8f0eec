/// A triangle low-frequency oscillator, -1…1, starting at 0 and rising after its delay (SF2's
/// modulation and vibrato LFOs). Stepped at control rate: a block at a time.
public struct TriangleLFO: Sendable {
    @usableFromInline var phase: Float = 0          // turns, 0 ..< 1
    @usableFromInline var increment: Float = 0      // turns per frame
    @usableFromInline var delayFrames = 0

    /// - Thread: any.
    public init() {}

    /// - Thread: audio.
    @inlinable @_noAllocation @_noLocks
    public mutating func start(delay: Double, frequency: Double, sampleRate: Double) {
        phase = 0
        delayFrames = Int(delay * sampleRate)
        increment = Float(min(max(frequency, 0), sampleRate / 4) / sampleRate)
    }

    /// The value now, then advances `frameCount` frames.
    /// - Thread: audio.
    @inlinable @_noAllocation @_noLocks
    public mutating func valueThenAdvance(by frameCount: Int) -> Float {
        if delayFrames > 0 {
            delayFrames -= min(delayFrames, frameCount)
            return 0
        }
        // 0 → 1 over the first quarter, 1 → -1 over the middle half, -1 → 0 over the last quarter.
        let value: Float = phase < 0.25 ? 4 * phase : (phase < 0.75 ? 2 - 4 * phase : 4 * phase - 4)
        phase += increment * Float(frameCount)
        while phase >= 1 { phase -= 1 }  // at most a few turns: the frequency is capped at rate/4
        return value
    }
}
