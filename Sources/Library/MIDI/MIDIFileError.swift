/// Why a Standard MIDI File could not be read, and where: ready to print as one line,
/// `"<file>: byte <offset>: <reason>"`.
///
/// - Thread: control. For every member.
public struct MIDIFileError: Error, CustomStringConvertible, Equatable {
    /// The file's name (the last path component), not the whole path: errors are read by people
    /// who know which directory they pointed at.
    /// - Thread: control.
    public let file: String
    /// Byte offset from the start of the file at which reading failed. For data that stops short
    /// it is the end of the data: the first byte that should have been there and was not.
    /// - Thread: control.
    public let offset: Int
    /// What was wrong, in words, without the file name or offset.
    /// - Thread: control.
    public let reason: String

    /// An error to report against `file` at `offset`.
    /// - Thread: control.
    public init(file: String, offset: Int, reason: String) {
        self.file = file
        self.offset = offset
        self.reason = reason
        isPinnedToAByte = true
    }

    /// False for a problem with the file as a whole (missing, unreadable, no regular file), which
    /// has no byte to point at.
    /// - Thread: control.
    public let isPinnedToAByte: Bool

    /// A problem with the file as a whole: it cannot be opened or is no regular file.
    /// - Thread: control.
    public init(file: String, reason: String) {
        self.file = file
        offset = 0
        self.reason = reason
        isPinnedToAByte = false
    }

    /// The one-line form, `"<file>: byte <offset>: <reason>"`, or `"<file>: <reason>"` for the
    /// file as a whole.
    /// - Thread: control.
    public var description: String { isPinnedToAByte ? "\(file): byte \(offset): \(reason)" : "\(file): \(reason)" }
}

/// Damage a file was read past: it parsed, but lost something, said in one clause naming the track
/// and the byte, e.g. "track 3 of 5 ends at byte 20480, 1234 bytes short of its declared length".
///
/// - Thread: control. For every member.
public struct MIDIFileProblem: Sendable, CustomStringConvertible, Equatable {
    /// The file's name (the last path component), as in `MIDIFileError`.
    /// - Thread: control.
    public let file: String
    /// Where the damage is: for a file that ends early, its end.
    /// - Thread: control.
    public let offset: Int
    /// What was lost, without the file name.
    /// - Thread: control.
    public let reason: String

    /// - Thread: control.
    public init(file: String, offset: Int, reason: String) {
        self.file = file
        self.offset = offset
        self.reason = reason
    }

    /// `"<file>: <reason>"`.
    /// - Thread: control.
    public var description: String { "\(file): \(reason)" }
}
