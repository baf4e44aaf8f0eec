/// A MIDI message a synthesiser acts on: a channel voice message, or one of the System Exclusive
/// messages it recognises (`SystemExclusive`). Channels are 0-based as on the wire (the General
/// MIDI drum channel "10" is 9); data values are 7-bit.
///
/// The one vocabulary from the readers to the voices: the file and stream parsers make these, and
/// the renderer acts on them as they are (`RenderCommand.Action.midi`).
///
/// - Thread: any. Made on the control thread, where the readers run. A plain, trivially copyable
///   value, so it travels to the audio thread by value and is read there.
public enum MIDIMessage: Sendable, Equatable, BitwiseCopyable {
    /// A key pressed. The readers never produce velocity 0: they turn those into `noteOff`; the
    /// renderer takes a velocity 0 sent by other code as a note-off too.
    case noteOn(channel: UInt8, key: UInt8, velocity: UInt8)
    /// A key released, with its release velocity (which the renderer does not use).
    case noteOff(channel: UInt8, key: UInt8, velocity: UInt8)
    /// A controller moved: sustain pedal (64), volume (7), bank select (0, 32), ...
    case controlChange(channel: UInt8, controller: UInt8, value: UInt8)
    /// Selects an instrument, 0-based (General MIDI's "program 1" is 0).
    case programChange(channel: UInt8, program: UInt8)
    /// `value` is 0...16383; 8192 is the centre (no bend).
    case pitchBend(channel: UInt8, value: UInt16)
    /// Aftertouch for the whole channel.
    case channelPressure(channel: UInt8, pressure: UInt8)
    /// Aftertouch for one key (polyphonic key pressure): that key's own pressure, apart from the
    /// channel's.
    case polyPressure(channel: UInt8, key: UInt8, pressure: UInt8)
    /// A recognised SysEx message: a system reset, a GS rhythm-part assignment, master volume.
    case system(SystemExclusive)

    /// The 0-based channel the message is addressed to; 0x7F for a system message addressed to
    /// every channel (see `SystemExclusive.channel`).
    /// - Thread: any. A pure function of the value.
    public var channel: UInt8 {
        switch self {
        case let .noteOn(channel, _, _), let .noteOff(channel, _, _), let .controlChange(channel, _, _),
             let .programChange(channel, _), let .pitchBend(channel, _), let .channelPressure(channel, _),
             let .polyPressure(channel, _, _):
            channel
        case let .system(message):
            message.channel
        }
    }

    /// Whether losing this message would leave something sounding: note-offs (and note-ons of
    /// velocity 0), pedal-ups, the channel-mode messages that stop notes, and system resets.
    /// - Thread: any. A pure function of the value.
    public var endsSound: Bool {
        switch self {
        case .noteOff, .system(.systemReset): true
        case let .noteOn(_, _, velocity): velocity == 0
        case let .controlChange(_, controller, value):
            switch MIDIController.named(controller) {
            case .sustainPedal?, .sostenutoPedal?: !MIDIController.isDown(pedalValue: value)
            case .allSoundOff?, .resetAllControllers?, .allNotesOff?, .omniOff?, .omniOn?, .monoOn?, .polyOn?: true
            default: false
            }
        default: false
        }
    }
}
