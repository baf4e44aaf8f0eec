/// One event of one track chunk, at its absolute tick: what the file says, before tempo turns
/// ticks into seconds.
///
/// - Thread: control. For every member.
public struct TrackEvent: Sendable, Equatable, BitwiseCopyable {
    /// Ticks from the start of the track: the sum of the delta times up to and including this one.
    /// - Thread: control.
    public var tick: Int
    /// What the event is.
    /// - Thread: control.
    public var kind: Kind

    /// An event at `tick`.
    /// - Thread: control.
    public init(tick: Int, kind: Kind) {
        self.tick = tick
        self.kind = kind
    }

    /// What happens at the event's tick. Only what playback needs is decoded; the payloads of
    /// other meta events and of SysEx messages not recognised are skipped, so a malformed one (say, a key signature with a
    /// bad mode byte) cannot stop a file from playing.
    public enum Kind: Sendable, Equatable, BitwiseCopyable {
        /// A channel voice message, velocity-0 note-ons already turned into note-offs.
        case channel(MIDIMessage)
        /// Meta event 0x51: from this tick on, a quarter note lasts this many microseconds.
        case tempo(microsecondsPerQuarter: Int)
        /// Meta event 0x2F. Counts toward `MIDIFile.duration`: a track may end after silence.
        case endOfTrack
        /// Any other meta event, by type (0x03 track name, 0x58 time signature, ...).
        case meta(type: UInt8)
        /// A SysEx message (0xF0) or an escape (0xF7), with its meaning when it is a whole message
        /// `SystemExclusive` recognises (nil for every other, whose bytes are skipped).
        case sysEx(SystemExclusive?)
    }
}
