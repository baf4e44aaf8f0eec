/// The MIDI 1.0 controller numbers the renderer acts on, named once for the sampler that interprets
/// them and for the control-thread code that sends them or must not lose them. Other numbers are
/// accepted and ignored.
///
/// - Thread: any. For every member: a plain value.
public enum MIDIController: UInt8, Sendable {
    case bankSelect = 0
    case modulationWheel = 1
    /// Data entry for the selected registered parameter: its MSB (RPN 0: pitch-bend range in
    /// semitones; RPN 1: fine tuning, with the LSB; RPN 2: coarse tuning in semitones, 64 = none).
    case dataEntry = 6
    case volume = 7
    case pan = 10
    case expression = 11
    case bankSelectLSB = 32
    /// Data entry's fine part (RPN 0: cents; RPN 1: the low 7 bits of the 14-bit fine tuning).
    case dataEntryLSB = 38
    /// Down at 64 and above (`isDown(pedalValue:)`).
    case sustainPedal = 64
    /// Sostenuto: the notes whose keys are down when it goes down are held until it comes up;
    /// notes played after it went down are not. Down at 64 and above.
    case sostenutoPedal = 66
    /// Soft pedal: named so it is known, and deliberately changes nothing. SF2 2.04 has no default
    /// modulator for CC67 and FluidSynth has none either: it only stores the value for a
    /// SoundFont's own modulators to read, which Staccato does not apply.
    case softPedal = 67
    case reverbSend = 91
    case chorusSend = 93
    case nonRegisteredParameterLSB = 98
    case nonRegisteredParameterMSB = 99
    case registeredParameterLSB = 100
    case registeredParameterMSB = 101
    /// Channel mode: every voice of the channel fades out at once.
    case allSoundOff = 120
    /// Channel mode: controllers back to their defaults; the pedal lets go of its notes.
    case resetAllControllers = 121
    /// Channel mode: every note of the channel is released, pedal-held ones included. The omni and
    /// mono/poly messages after it end every note too (MIDI 1.0), but only on the basic channel
    /// (`RenderConfiguration.basicChannel`): Staccato never changes mode, so on other channels
    /// they mean nothing.
    case allNotesOff = 123
    case omniOff = 124
    case omniOn = 125
    case monoOn = 126
    case polyOn = 127

    /// Whether a pedal controller's `value` holds it down: 64 and above (MIDI 1.0).
    /// - Thread: any
    @_noAllocation @_noLocks
    public static func isDown(pedalValue value: UInt8) -> Bool { value >= 64 }

    /// The controller number, for tables indexed by controller (`ChannelState.controllers`).
    /// - Thread: any
    public var index: Int {
        // The synthesized rawValue is out of line in unoptimised builds, like `init(rawValue:)` below.
        @_noAllocation @_noLocks get { _unsafePerformance { Int(rawValue) } }
    }

    /// The controller `number` names, if the renderer acts on it.
    /// - Thread: any
    @_noAllocation @_noLocks
    public static func named(_ number: UInt8) -> MIDIController? {
        // The synthesized initializer is a switch over the raw values. Optimised builds inline it
        // and the performance checker sees it through; unoptimised ones call it out of line, where
        // the checker cannot look, so it is vouched for here.
        _unsafePerformance { MIDIController(rawValue: number) }
    }
}
