/// What the microphone's voice processing has found, as the audio thread last published it.
public struct VoiceProcessingStatus: Sendable, Equatable {
    /// The mains hum's fundamental once hum removal has found it, in hertz; nil before, or with
    /// hum removal off.
    public var humHertz: Float?
    /// The level of the hum being cancelled, in dBFS (RMS); −200 when there is none.
    public var humDecibels: Float

    /// - Thread: any.
    public init(humHertz: Float? = nil, humDecibels: Float = -200) {
        self.humHertz = humHertz
        self.humDecibels = humDecibels
    }
}
