/// The renderer's fixed step. Instruments, and the effects their voices send to, are rendered one
/// quantum at a time on a grid anchored to frame 0, whatever block size a caller asks for: a block
/// that ends inside a quantum takes its first frames, and the next block the rest. So the control
/// grid (envelopes, LFOs, modulators, gain ramps) always falls on the same frames, and a render in
/// blocks of 1, 7 or 4,096 frames is bit for bit the render in blocks of 64. Commands still take
/// effect on their exact frames, inside the quantum.
///
/// A command must be queued before the quantum holding its frame is rendered: up to
/// `frameCount - 1` frames before the block holding it is asked for. Offline renders queue up to
/// `boundary(atOrAfter:)` of the next block's end and declare it (`Renderer.declareCommandsQueued(before:)`),
/// so the voices may run on past the block; live play queues a lookahead ahead, which is longer. A command that arrives
/// late takes effect at the next quantum's first frame, as one stamped in the past does; or, when the
/// block's voices were rendered for several quanta at once (`Renderer.stretchQuantumCount`), at the
/// first quantum after them, within the block asked for.
public enum RenderQuantum {
    /// 64 frames: 1.3 ms at 48 kHz, finer than an envelope step can be heard, and the length of
    /// FluidSynth's own internal block.
    /// - Thread: any.
    @inlinable
    public static var frameCount: Int {
        @_noAllocation @_noLocks get { 64 }
    }

    /// The first frame of the grid at or after `frame`: where a song must start for its quanta to
    /// fall where another render's fall, and, for the end of a block, how far the renderer renders
    /// its instruments to deliver it (commands for earlier frames must be queued by then).
    /// - Thread: any.
    @inlinable @_noAllocation @_noLocks
    public static func boundary(atOrAfter frame: FrameTime) -> FrameTime {
        let step = FrameTime(frameCount)
        return (frame + step - 1) / step * step
    }
}
