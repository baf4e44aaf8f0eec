import DSP

/// What the control thread asks of the audio thread. Fixed-size and trivially copyable, so it
/// travels through an `SPSCRing` by value; nothing in it is allocated or reference-counted.
///
/// Commands take effect at `frameTime`: the renderer splits its block there, so timing is
/// sample-accurate and never snaps to the period. A command whose frame has already passed takes
/// effect at the start of the next block. The ring is first in, first out, so the control thread
/// sends commands in frame order.
public struct RenderCommand: @unchecked Sendable, BitwiseCopyable, Equatable {
    public var frameTime: FrameTime
    public var action: Action

    public init(at frameTime: FrameTime, _ action: Action) {
        self.frameTime = frameTime
        self.action = action
    }

    public enum Action: @unchecked Sendable, BitwiseCopyable, Equatable {
        /// Starts (or retunes, without a phase jump) test tone `slot` with a short fade-in.
        case toneOn(slot: UInt8, frequency: Float, amplitude: Float)
        /// Fades test tone `slot` out over a few milliseconds.
        case toneOff(slot: UInt8)
        /// Fades every sounding voice out at once: the panic button.
        case allSoundOff
        /// MIDI note-on (velocity 0 is a note-off).
        case noteOn(channel: UInt8, key: UInt8, velocity: UInt8)
        case noteOff(channel: UInt8, key: UInt8)
        /// MIDI control change, including bank select, sustain, RPN data and the channel-mode
        /// messages (all sound off, reset controllers, all notes off).
        case controlChange(channel: UInt8, controller: UInt8, value: UInt8)
        case programChange(channel: UInt8, program: UInt8)
        /// 14-bit pitch wheel, 8192 = centre.
        case pitchBend(channel: UInt8, value: UInt16)
        case channelPressure(channel: UInt8, pressure: UInt8)
        /// Makes a `SampleBank` current; the renderer takes over the retain in `bank`, and hands the
        /// bank back as `.retired` when its last voice has ended after a later switch.
        case installBank(RetainedObject, layout: UnsafePointer<SampleBank.Layout>)
        /// Makes a `DrumKit` current: from then on channel 10 plays it. Ownership as for banks.
        case installKit(RetainedObject, layout: UnsafePointer<DrumKit.Layout>)
        /// Switches the reverb's room (decay and damping; the mix is a knob of its own).
        case reverbPreset(ReverbPreset)
        /// Fades the output out (true) or back in (false), leaving every knob where it is.
        case mute(Bool)
        /// A MIDI system reset (GM, GM2, GS, XG System On): every sound stops, and every channel's
        /// controllers, program and bank go back to the General MIDI defaults, with channel 10 the
        /// only drum channel and the song's master volume full.
        case systemReset
        /// Makes `channel` a drum channel playing bank 128 (`isDrum`) or a melodic one, its
        /// controllers reset and program 0 selected (GS "use for rhythm part").
        case rhythmPart(channel: UInt8, isDrum: Bool)
        /// The song's master volume (MIDI Master Volume): 0 ... 16383, a linear gain on every MIDI
        /// instrument, ramped over 5 ms. It multiplies the listener's `masterVolume` knob, which it
        /// leaves alone.
        case songVolume(UInt16)
    }
}
