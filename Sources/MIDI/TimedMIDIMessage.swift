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
