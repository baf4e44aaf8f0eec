/// How a render's voices spent their control blocks, counted where a profile asks for it
/// (`RenderConfiguration.profilesStages`, `Renderer.voiceCensus`): how many were released notes
/// ringing out, and how many of those could no longer be heard. It sizes what ending a voice once
/// it falls below hearing would save, before any such rule changes a render.
///
/// A voice's level in a block is the loudest of its gains over the block (pan, level, envelope;
/// the song's gain too), as for a full-scale sample: a bound on its dry output, which leaves out
/// its filter's resonance and what its sends bring back through the reverb and chorus.
/// - Thread: any. A plain value.
public struct RenderVoiceCensus: Sendable, Equatable {
    /// The level below which a voice counts as inaudible: -120 dBFS.
    /// - Thread: any.
    public static var inaudibleDecibels: Float { -120 }

    /// Control blocks the voices rendered, one per voice and block.
    public var voiceBlocks: UInt64 = 0
    /// Those of voices whose notes were released (key and pedal up: their release stages) or that
    /// fade out (stolen, all sound off, cut by an SFZ `off_by` group).
    public var releasedVoiceBlocks: UInt64 = 0
    /// Those of released voices whose level stayed below `inaudibleDecibels` all block.
    public var inaudibleReleasedVoiceBlocks: UInt64 = 0

    /// - Thread: any.
    public init(voiceBlocks: UInt64 = 0, releasedVoiceBlocks: UInt64 = 0, inaudibleReleasedVoiceBlocks: UInt64 = 0) {
        (self.voiceBlocks, self.releasedVoiceBlocks, self.inaudibleReleasedVoiceBlocks) =
            (voiceBlocks, releasedVoiceBlocks, inaudibleReleasedVoiceBlocks)
    }

    /// `count`'s share of all voice blocks, 0…1.
    /// - Thread: any.
    public func share(of count: UInt64) -> Double { voiceBlocks > 0 ? Double(count) / Double(voiceBlocks) : 0 }
}
