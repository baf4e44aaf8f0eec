import Render

/// How an `Engine` is built. Every field has a default, so adding one breaks no caller.
public struct EngineConfiguration: Sendable, Equatable {
    /// Rate, channels and the longest block; see `RenderConfiguration`.
    public var render = RenderConfiguration()
    /// Commands the control thread can queue ahead of the audio thread before sends are refused.
    public var commandCapacity = 4_096
    /// Events the audio thread can queue before the control thread drains them.
    public var eventCapacity = 1_024
    /// Master volume at start, 0...1. Live front ends start at 0.3: starting quiet is a safety feature.
    public var initialMasterVolume: Float = 1
    /// Seconds of output the recording tap can hold while the writer thread catches up; 0 builds
    /// no tap (nothing can record).
    public var recordingBufferSeconds: Double = 0
    /// Seconds of the processed microphone, alone, the microphone's tap can hold (a karaoke stem,
    /// `Engine.microphoneTap`); 0 builds no tap.
    public var microphoneRecordingBufferSeconds: Double = 0

    /// - Thread: any.
    public init(render: RenderConfiguration = RenderConfiguration(), commandCapacity: Int = 4_096,
                eventCapacity: Int = 1_024, initialMasterVolume: Float = 1, recordingBufferSeconds: Double = 0,
                microphoneRecordingBufferSeconds: Double = 0) {
        self.render = render
        self.commandCapacity = commandCapacity
        self.eventCapacity = eventCapacity
        self.initialMasterVolume = initialMasterVolume
        self.recordingBufferSeconds = recordingBufferSeconds
        self.microphoneRecordingBufferSeconds = microphoneRecordingBufferSeconds
    }
}
