/// A sample folder that could not be loaded: the file (or folder) at fault and what is wrong with
/// it, printable as one line, `<path>: <reason>`.
///
/// Manifest problems name the manifest as `path` and start `reason` with the field, so
/// `samples[2].root: expected a MIDI key 0-127 or a note name, got 200` points at the exact entry.
public struct SampleSetError: Error, CustomStringConvertible, Equatable {
    public let path: String
    public let reason: String

    /// Line breaks in `reason` (libsndfile and Foundation messages sometimes carry them) become
    /// spaces, so the description stays one line in a log or a terminal.
    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason.split(whereSeparator: \.isNewline).joined(separator: " ")
    }

    public var description: String { "\(path): \(reason)" }
}
