/// What the renderer is fixed to when it is built. Every field has a default, so adding one breaks
/// no caller.
public struct RenderConfiguration: Sendable, Equatable {
    /// Frames per second.
    public var sampleRate: Double = 48_000
    /// Interleaved output channels.
    public var channelCount: Int = 2
    /// The longest block one `render` call may ask for; scratch memory is sized for it.
    public var maxFrameCount: Int = 4_096

    public init(sampleRate: Double = 48_000, channelCount: Int = 2, maxFrameCount: Int = 4_096) {
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.maxFrameCount = maxFrameCount
    }
}
