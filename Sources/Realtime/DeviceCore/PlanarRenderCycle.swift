import Render

/// An embedding host's render call: the host owns the audio thread and asks for any number of
/// frames into one buffer per channel (the C ABI's `staccato_synth_render`, a plug-in's `run`).
/// It is a backend like ALSA's or JACK's: a callback into one `StreamCore`.
///
/// Guarantees:
/// - `render(left:right:frameCount:)` never allocates, locks or waits (the build proves the first
///   two) and overwrites every frame it is given, whatever `frameCount`: longer calls are rendered
///   in blocks of the renderer's `maxFrameCount`.
/// - What it writes is the renderer's output frame for frame: the same commands give the same
///   samples whatever the host's call sizes.
///
/// - Thread: any. `render` is the audio thread's (one at a time); the rest is as marked.
public final class PlanarRenderCycle: @unchecked Sendable {
    public let core: StreamCore
    /// The same core, for the audio thread: a guaranteed reference costs no reference counting.
    private let coreReference: Unmanaged<StreamCore>
    private let interleaved: UnsafeMutablePointer<Float>

    /// A cycle over a stereo `core` with no input.
    /// - Thread: control. Not real-time safe: allocates.
    public init(core: StreamCore) {
        precondition(core.channelCount == 2 && core.inputChannelCount == 0)
        self.core = core
        coreReference = Unmanaged.passUnretained(core)
        interleaved = .allocate(capacity: core.maxFrameCount * 2)
        // Written now, so that no page of it is first touched on the audio thread.
        interleaved.initialize(repeating: 0, count: core.maxFrameCount * 2)
        core.start(frameLimit: nil)
    }

    deinit { interleaved.deallocate() }

    /// Renders the next `frameCount` frames into `left` and `right`.
    /// - Thread: audio.
    @_noAllocation @_noLocks
    public func render(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, frameCount: Int) {
        let maxFrameCount = coreReference._withUnsafeGuaranteedRef { $0.maxFrameCount }
        let output = interleaved
        var done = 0
        while done < frameCount {
            let count = min(maxFrameCount, frameCount - done)
            _ = coreReference._withUnsafeGuaranteedRef { $0.process(output: output, input: nil, frameCount: count, wakeup: 0) }
            copySamples(count, from: UnsafePointer(output), stride: 2, to: left + done, stride: 1)
            copySamples(count, from: UnsafePointer(output + 1), stride: 2, to: right + done, stride: 1)
            done += count
        }
    }
}
