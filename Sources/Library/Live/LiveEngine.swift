import AudioIO
import Engine
import Render

extension Engine {
    /// An engine for a live stream: its renderer at `stream`'s rate and channel count, with a
    /// block that holds a whole period and the one frame more a drift-corrected duplex stream
    /// renders at times (at least the default 4,096 frames), everything else as `render` says.
    /// What every live command builds, and what a library caller playing on a device builds.
    /// - Thread: control. Not real-time safe: allocates.
    public convenience init(for stream: StreamConfiguration, render: RenderConfiguration = RenderConfiguration(),
                            initialMasterVolume: Float = 1, recordingBufferSeconds: Double = 0,
                            microphoneRecordingBufferSeconds: Double = 0) {
        var render = render
        render.sampleRate = Double(stream.sampleRate)
        render.channelCount = stream.channelCount
        render.maxFrameCount = max(RenderConfiguration().maxFrameCount, stream.periodFrameCount + 1)
        self.init(configuration: EngineConfiguration(render: render, initialMasterVolume: initialMasterVolume,
                                                     recordingBufferSeconds: recordingBufferSeconds,
                                                     microphoneRecordingBufferSeconds: microphoneRecordingBufferSeconds))
    }
}
