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
    /// Drum hits played (channel 10 note-ons with a kit installed and a pad for the note).
    public var drumHits: Int
    /// Hits that recycled a pad's oldest ringing voice (with a 5 ms fade of the old sound).
    public var drumRecycles: Int
    /// Ringing voices faded by a choke group.
    public var drumChokes: Int
    /// Channel-10 note-ons that no pad of the kit plays.
    public var unmappedHits: Int
    /// Drum voices ringing after the last block.
    public var activeDrumVoices: Int
    /// Frames the output's safety limiter turned down (by more than 0.01 dB), and the most it
    /// turned them down, in dB, positive (0: never): a mix too loud for the gain it was played at.
    public var limitedFrames: Int = 0
    public var deepestLimiterDecibels: Float = 0
    /// Sample underruns, in a bank still decoding in the background (`SampleResidency`): regions a
    /// note-on did not start because nothing of their sample was in memory (the note sounded
    /// without them), and voices that ended because their next frames were not yet decoded.
    /// Offline renders decode what the song plays first, so theirs is 0.
    public var sampleUnderruns: Int = 0
}
