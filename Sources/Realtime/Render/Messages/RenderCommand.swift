import DSP
// Commands carry MIDI messages as the vocabulary has them: whoever speaks to the renderer speaks
// MIDIVocabulary, and gets it with this module.
@_exported import MIDIVocabulary

/// What the control thread asks of the audio thread. Fixed-size and trivially copyable, so it
/// travels through an `SPSCRing` by value; nothing in it is allocated or reference-counted.
///
/// Commands take effect at `frameTime`: the renderer splits its block there, so timing is
/// sample-accurate and never snaps to the period. A command whose frame has already passed takes
/// effect as soon as the renderer reads it from the ring, usually at the start of the next block.
/// Commands may be sent in any order: the renderer applies them in frame order, those for the
/// same frame in the order sent (`Renderer.applyCommands`).
///
/// - Thread: any. Made on the control thread, read on the audio thread.
public struct RenderCommand: @unchecked Sendable, BitwiseCopyable, Equatable {
    public var frameTime: FrameTime
    public var action: Action

    /// - Thread: any.
    @_noAllocation @_noLocks
    public init(at frameTime: FrameTime, _ action: Action) {
        self.frameTime = frameTime
        self.action = action
    }

    /// What the command does: a MIDI message, or something only the engine asks for.
    /// - Thread: any.
    public enum Action: @unchecked Sendable, BitwiseCopyable, Equatable {
        /// Starts (or retunes, without a phase jump) test tone `slot` with a short fade-in.
        case toneOn(slot: UInt8, frequency: Float, amplitude: Float)
        /// Fades test tone `slot` out over a few milliseconds.
        case toneOff(slot: UInt8)
        /// Fades every sounding voice out at once: the panic button.
        case allSoundOff
        /// A MIDI message, acted on as the message says: channel messages go to the sampler (channel
        /// 10's notes to the drum kit when one is installed), and the recognised SysEx messages
        /// reset the channels, assign rhythm parts or set the song's master volume
        /// (`SystemExclusive`). A note-on of velocity 0 is a note-off.
        case midi(MIDIMessage)
        /// Makes a `SampleBank` current; the renderer takes over the retain in `bank`, and hands the
        /// bank back as `.retired` when its last voice has ended after a later switch.
        case installBank(RetainedObject, layout: UnsafePointer<SampleBank.Layout>)
        /// Makes a `DrumKit` current: from then on channel 10 plays it. Ownership as for banks.
        case installKit(RetainedObject, layout: UnsafePointer<DrumKitPlayback.Layout>)
        /// Switches the reverb's room (decay and damping; the mix is a knob of its own).
        case reverbPreset(ReverbPreset)
        /// Fades the output out (true) or back in (false), leaving every knob where it is.
        case mute(Bool)
    }
}

extension RenderCommand.Action {
    /// Whether this action changes what the renderer's mixing uses (the tones, the song's volume,
    /// the effects) rather than the voices alone: the mixing of every segment before it must be
    /// done first (`Renderer.advanceInstruments`).
    /// - Thread: any
    public var touchesMix: Bool {
        @_noAllocation @_noLocks get {
            switch self {
            case .toneOn, .toneOff, .allSoundOff, .reverbPreset, .mute: true
            case let .midi(message):
                switch message {
                case .system(.systemReset), .system(.masterVolume): true
                default: false
                }
            case .installBank, .installKit: false
            }
        }
    }

    /// Whether losing this action would leave something sounding: the MIDI messages that end
    /// sound (`MIDIMessage.endsSound`), tone-offs, all-sound-off and mute.
    /// - Thread: any
    public var endsSound: Bool {
        switch self {
        case let .midi(message): message.endsSound
        case .toneOff, .allSoundOff: true
        case let .mute(muted): muted
        default: false
        }
    }
}
