/// What the microphone's voice processing has found, as the audio thread last published it.
public struct VoiceProcessingStatus: Sendable, Equatable {
    /// The mains hum's fundamental once hum removal has found it, in hertz; nil before, or with
    /// hum removal off.
    public var humHertz: Float?
    /// The level of the hum being cancelled, in dBFS (RMS); −200 when there is none.
    public var humDecibels: Float
    /// How far below the microphone's echo the output's is, in dB (the echo return loss
    /// enhancement), once the track has played 2 s; nil before, or without echo cancellation.
    public var echoReturnLossEnhancementDecibels: Float?

    /// - Thread: any.
    public init(humHertz: Float? = nil, humDecibels: Float = -200, echoReturnLossEnhancementDecibels: Float? = nil) {
        self.humHertz = humHertz
        self.humDecibels = humDecibels
        self.echoReturnLossEnhancementDecibels = echoReturnLossEnhancementDecibels
    }
}
