import DSP

/// What the control thread asks of the audio thread. Fixed-size and trivially copyable, so it
/// travels through an `SPSCRing` by value; nothing in it is allocated or reference-counted.
///
/// Commands take effect at `frameTime`: the renderer splits its block there, so timing is
/// sample-accurate and never snaps to the period. A command whose frame has already passed takes
/// effect at the start of the next block. The ring is first in, first out, so the control thread
/// sends commands in frame order.
public struct RenderCommand: Sendable, BitwiseCopyable, Equatable {
    public var frameTime: FrameTime
    public var action: Action

    public init(at frameTime: FrameTime, _ action: Action) {
        self.frameTime = frameTime
        self.action = action
    }

    public enum Action: Sendable, BitwiseCopyable, Equatable {
        /// Starts (or retunes, without a phase jump) test tone `slot` with a short fade-in.
        case toneOn(slot: UInt8, frequency: Float, amplitude: Float)
        /// Fades test tone `slot` out over a few milliseconds.
        case toneOff(slot: UInt8)
        /// Fades every sounding voice out at once: the panic button.
        case allSoundOff
    }
}
