/// Why a SoundFont could not be loaded, pinned to the place in the file where the loader gave up,
/// so a user with a hex editor (or a bug report) can find the bad bytes.
///
/// A loader either returns a whole `SampleBank` or throws one of these: there is no partial result.
///
/// - Thread: any. A plain value.
public struct SoundFontError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The file's name (last path component), or the name given to `load(bytes:name:sampleRate:)`.
    public let file: String
    /// The chunk path the problem was found in, e.g. `RIFF`, `INFO/ifil`, `sdta/smpl`, `pdta/shdr`.
    public let chunk: String
    /// Byte offset from the start of the file of the header, record or field at fault.
    public let offset: Int
    /// What is wrong, in words.
    public let reason: String

    /// - Thread: any.
    public init(file: String, chunk: String, offset: Int, reason: String) {
        self.file = file
        self.chunk = chunk
        self.offset = offset
        self.reason = reason
    }

    /// A problem with the file as a whole (it cannot be opened, or is no regular file): no chunk
    /// or byte to point at.
    /// - Thread: any.
    public init(file: String, reason: String) {
        self.init(file: file, chunk: "", offset: 0, reason: reason)
    }

    /// One line: `<file>: chunk '<chunk>' at byte <offset>: <reason>`, or `<file>: <reason>` for a
    /// problem with the file as a whole.
    /// - Thread: any.
    public var description: String {
        chunk.isEmpty ? "\(file): \(reason)" : "\(file): chunk '\(chunk)' at byte \(offset): \(reason)"
    }
}
