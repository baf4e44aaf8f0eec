/// A file or folder that could not be loaded: the one at fault and what is wrong with it,
/// printable as one line, `<path>: <reason>`.
///
/// For a manifest, `path` is the manifest and `reason` starts with the field at fault
/// (`pads[2].note: 200 is not a MIDI note (0-127)`), so the message points at the exact entry to
/// fix. The loaders publish it under their own names (`SampleSetError`, `DrumKitError`).
///
/// - Thread: any.
public struct LoadError: Error, CustomStringConvertible, Equatable {
    public let path: String
    public let reason: String

    /// Line breaks in `reason` (libsndfile and Foundation messages sometimes carry them) become
    /// spaces, so the description stays one line in a log or a terminal.
    /// - Thread: any.
    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason.split(whereSeparator: \.isNewline).joined(separator: " ")
    }

    /// `<path>: <reason>`.
    /// - Thread: any.
    public var description: String { "\(path): \(reason)" }
}
