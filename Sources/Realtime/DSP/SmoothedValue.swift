/// A value that moves to its target along a straight line over a fixed number of frames, so gain
/// changes, starts and stops never make a step (a click) in the output.
public struct SmoothedValue: Sendable {
    /// The value of the last frame.
    /// - Thread: audio.
    @inlinable public var current: Float { currentValue }
    /// Where the value is heading.
    /// - Thread: audio.
    @inlinable public var target: Float { targetValue }
    @usableFromInline var currentValue: Float
    @usableFromInline var targetValue: Float
    @usableFromInline var step: Float = 0
    @usableFromInline var remainingFrameCount: Int = 0
    /// How many frames a full move takes.
    /// - Thread: audio.
    public var rampFrameCount: Int

    /// - Thread: any.
    public init(_ value: Float, rampFrameCount: Int) {
        currentValue = value
        targetValue = value
        self.rampFrameCount = max(1, rampFrameCount)
    }

    /// True while a move is under way.
    /// - Thread: audio.
    @inlinable public var isMoving: Bool { remainingFrameCount > 0 }

    /// Starts a move from the current value to `newTarget`. Asking again for the target a move is
    /// already heading to changes nothing: knobs are re-read every block, and restarting the ramp
    /// each time would make it an endless exponential approach that never arrives.
    /// - Thread: audio.
    @inlinable @_noAllocation @_noLocks
    public mutating func move(to newTarget: Float) {
        guard newTarget != targetValue else { return }
        targetValue = newTarget
        remainingFrameCount = rampFrameCount
        step = (newTarget - currentValue) / Float(rampFrameCount)
    }

    /// Jumps to `value` at once. Only for a value nothing is sounding through yet.
    /// - Thread: audio.
    @inlinable @_noAllocation @_noLocks
    public mutating func reset(to value: Float) {
        currentValue = value
        targetValue = value
        remainingFrameCount = 0
    }

    /// Advances one frame and returns the value for it.
    /// - Thread: audio.
    @inlinable @_noAllocation @_noLocks
    public mutating func next() -> Float {
        if remainingFrameCount > 0 {
            remainingFrameCount -= 1
            currentValue = remainingFrameCount == 0 ? targetValue : currentValue + step
        }
        return currentValue
    }
}
