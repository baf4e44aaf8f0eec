/// A drum kit that could not be loaded: the file at fault and what is wrong, printable as one
/// line, `<path>: <reason>`.
///
/// `path` is the manifest for everything the manifest names, including a pad's audio file, and
/// `reason` starts with the field at fault, so
/// `kit.json: pads[1].file: snare.wav: 3 channels; a pad must be mono or stereo` points at both
/// the entry to fix and the file behind it.
///
/// - Thread: any.
public struct DrumKitError: Error, CustomStringConvertible, Equatable {
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
