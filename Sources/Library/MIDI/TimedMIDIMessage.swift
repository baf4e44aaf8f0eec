/// One channel message of a file, placed on the file's timeline.
///
/// - Thread: control. For every member. Produced by `MIDIFile.timedMessages()`.
public struct TimedMIDIMessage: Sendable, Equatable {
    /// From the start of the file, through the tempo map.
    /// - Thread: control.
    public var seconds: Double
    /// Index into `MIDIFile.tracks` of the track the message came from.
    /// - Thread: control.
    public var track: Int
    /// What to do at `seconds`.
    /// - Thread: control.
    public var message: MIDIMessage

    /// A message placed `seconds` into the file.
    /// - Thread: control.
    public init(seconds: Double, track: Int, message: MIDIMessage) {
        self.seconds = seconds
        self.track = track
        self.message = message
    }
}
