/// What the sampler has done, as published by the audio thread after each block.
public struct RenderStatistics: Sendable, Equatable {
    /// Voices sounding after the last block (fading stolen voices not counted).
    public var activeVoices: Int
    /// The most voices that sounded at once.
    public var peakVoices: Int
    /// Voices taken from a sounding note to start a new one.
    public var stolenVoices: Int
    /// Steals that had to cut an audible voice because every fade slot was busy (target: 0).
    public var hardCuts: Int
    /// Note-ons received (velocity > 0).
    public var noteOns: Int
    /// Note-ons with no preset or region to play: nothing sounded, nothing is stuck.
    public var unmappedNotes: Int
}
