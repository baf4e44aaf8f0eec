import VoiceProcessing

/// What the renderer is fixed to when it is built. Every field has a default, so adding one breaks
/// no caller.
public struct RenderConfiguration: Sendable, Equatable {
    /// Frames per second.
    public var sampleRate: Double = 48_000
    /// Interleaved output channels.
    public var channelCount: Int = 2
    /// The longest block one `render` call may ask for; scratch memory is sized for it.
    public var maxFrameCount: Int = 4_096
    /// Sampler voices allocated at start (1 ... `maximumVoiceCount`). When all sound, new notes
    /// steal; none is dropped.
    public var voiceCount: Int = 256
    /// The largest voice pool: 16,384 voices, about four times what two cores render in real time
    /// at 64-frame periods, so a benchmark finds the machine's limit before the pool's.
    public static let maximumVoiceCount = 16_384
    /// Spare slots where stolen voices fade out over 5 ms instead of being cut.
    public var fadeSlotCount: Int = 64
    /// Sampler interpolation: cubic (4-point) by default, linear to save time.
    public var cubicInterpolation: Bool = true
    /// The output safety limiter (ceiling −1 dBFS, instant attack). On by default; off only for
    /// measurements that must see the unlimited signal.
    public var outputLimiter: Bool = true
    /// The feedback suppressor, while a microphone feeds the graph: narrow notches on the
    /// frequencies that feed back, the whole output ducked only as a last resort
    /// (`FeedbackSuppressor`). On by default.
    public var feedbackSuppression: Bool = true
    /// The build of the sampler's per-frame loops: the fastest the CPU runs unless one is asked for.
    /// A variant the CPU cannot run (or the environment rules out) falls back to the fastest it
    /// can, so no setting can crash the renderer.
    public var samplerKernel: SamplerKernelVariant = .fastestSupported
    /// The shortest a note sounds before its note-off releases it, in seconds: a note-off sooner
    /// (a zero-length note, a re-strike written before the last note-off) is held to this length,
    /// then released. FluidSynth's `synth.min-note-length`, with its default of 10 ms; 0 turns it off.
    public var minimumNoteSeconds: Double = RenderConfiguration.defaultMinimumNoteSeconds
    /// The channel (0-based) the mode messages (CC124-127: omni off/on, mono on, poly on) are
    /// obeyed on, as the MIDI spec's basic channel; on every other channel they are ignored.
    public var basicChannel: UInt8 = 0
    /// The reverb and chorus buses the sampler's voices send to (CC91/CC93 and the fonts' send
    /// generators), on by default as in FluidSynth; off, every voice plays dry and the buses cost
    /// nothing.
    public var effects: Bool = true
    /// Times each stage of the render (`RenderStage`) and keeps the totals (`Renderer.stageTimes`):
    /// two reads of the clock a stage, a group of voices and a block at a time, for a profile a
    /// maintainer can repeat (`staccato-bench profile`). Off, the renderer reads no clock for it.
    public var profilesStages: Bool = false
    /// The gain of everything a song plays (sampler and drum kit; not the microphone or the test
    /// tone), in dB, before the master volume. The default leaves dense General MIDI mixes
    /// through common fonts clear of the output limiter (see `defaultSongGainDecibels`).
    public var songGainDecibels: Float = RenderConfiguration.defaultSongGainDecibels
    /// Builds the microphone's voice-processing stage (noise suppression and automatic gain,
    /// switched live through `EffectsControls`): it adds one processing frame, 10 ms, to the
    /// microphone's path. Off, the chain has no such delay.
    public var voiceProcessing: Bool = false
    /// Builds the voice-processing stage with an echo canceller that removes from the microphone
    /// what the engine itself plays (a backing track, instruments); implies `voiceProcessing`.
    public var echoCancellation: Bool = false
    /// How long an echo the canceller models, in seconds (`VoiceProcessor.echoTailSeconds`).
    public var echoTailSeconds: Double = VoiceProcessor.echoTailSeconds

    /// Threads that render the sampler's voices: the audio thread and `threadCount − 1` workers
    /// (1...`maximumThreadCount`). The voices are split into the same work items whatever the
    /// count and the items are summed in one fixed order, so the output is bit-identical for every
    /// thread count; more threads only finish a block sooner.
    public var threadCount: Int = 1 {
        didSet { threadCount = min(max(threadCount, 1), Self.maximumThreadCount) }
    }

    /// The most threads a renderer takes.
    public static let maximumThreadCount = 64
    /// 10 ms, FluidSynth's default minimum note length.
    public static let defaultMinimumNoteSeconds = 0.010
    /// The song gain's default and range, in dB.
    public static let defaultSongGainDecibels: Float = -14
    public static let songGainRange: ClosedRange<Float> = -40...20

    /// - Thread: any.
    public init(sampleRate: Double = 48_000, channelCount: Int = 2, maxFrameCount: Int = 4_096,
                voiceCount: Int = 256, fadeSlotCount: Int = 64, cubicInterpolation: Bool = true,
                outputLimiter: Bool = true, feedbackSuppression: Bool = true,
                samplerKernel: SamplerKernelVariant = .fastestSupported,
                minimumNoteSeconds: Double = RenderConfiguration.defaultMinimumNoteSeconds, basicChannel: UInt8 = 0,
                effects: Bool = true, songGainDecibels: Float = RenderConfiguration.defaultSongGainDecibels) {
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.maxFrameCount = maxFrameCount
        self.voiceCount = min(max(voiceCount, 1), Self.maximumVoiceCount)
        self.fadeSlotCount = max(fadeSlotCount, 1)
        self.cubicInterpolation = cubicInterpolation
        self.outputLimiter = outputLimiter
        self.feedbackSuppression = feedbackSuppression
        self.samplerKernel = min(samplerKernel, .fastestSupported)
        self.minimumNoteSeconds = minimumNoteSeconds.isFinite ? max(0, minimumNoteSeconds) : 0
        self.basicChannel = min(basicChannel, 15)
        self.effects = effects
        self.songGainDecibels = songGainDecibels.isFinite
            ? min(max(songGainDecibels, Self.songGainRange.lowerBound), Self.songGainRange.upperBound) : 0
    }
}
