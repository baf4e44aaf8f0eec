/// A MIDI message a synthesiser acts on: a channel voice message, or one of the System Exclusive
/// messages it recognises (`SystemExclusive`). Channels are 0-based as on the wire (the General
/// MIDI drum channel "10" is 9); data values are 7-bit.
///
/// - Thread: control, where the reader makes it. A plain, trivially copyable value, so it can
///   travel to the audio thread by value and be read there.
public enum MIDIMessage: Sendable, Equatable, BitwiseCopyable {
    /// A key pressed. The reader never produces velocity 0: it turns those into `noteOff`.
    case noteOn(channel: UInt8, key: UInt8, velocity: UInt8)
    /// A key released, with its release velocity.
    case noteOff(channel: UInt8, key: UInt8, velocity: UInt8)
    /// A controller moved: sustain pedal (64), volume (7), bank select (0, 32), ...
    case controlChange(channel: UInt8, controller: UInt8, value: UInt8)
    /// Selects an instrument, 0-based (General MIDI's "program 1" is 0).
    case programChange(channel: UInt8, program: UInt8)
    /// `value` is 0...16383; 8192 is the centre (no bend).
    case pitchBend(channel: UInt8, value: UInt16)
    /// Aftertouch for the whole channel.
    case channelPressure(channel: UInt8, pressure: UInt8)
    /// Aftertouch for one key.
    case polyPressure(channel: UInt8, key: UInt8, pressure: UInt8)
    /// A recognised SysEx message: a system reset, a GS rhythm-part assignment, master volume.
    case system(SystemExclusive)

    /// The 0-based channel the message is addressed to; 0x7F for a system message addressed to
    /// every channel (see `SystemExclusive.channel`).
    /// - Thread: any: a pure function of the value.
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
}

/// One channel message of a file, placed on the file's timeline.
///
/// - Thread: control, for every member. Produced by `MIDIFile.timedMessages()`.
public struct TimedMIDIMessage: Sendable, Equatable {
    /// From the start of the file, through the tempo map.
    public var seconds: Double
    /// Index into `MIDIFile.tracks` of the track the message came from.
    public var track: Int
    /// What to do at `seconds`.
    public var message: MIDIMessage

    /// A message placed `seconds` into the file.
    /// - Thread: control.
    public init(seconds: Double, track: Int, message: MIDIMessage) {
        self.seconds = seconds
        self.track = track
        self.message = message
    }
}
