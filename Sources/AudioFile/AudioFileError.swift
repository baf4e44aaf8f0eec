/// A failure to read or write an audio file, with the path and what went wrong, ready to print as
/// one line.
public struct AudioFileError: Error, CustomStringConvertible, Equatable {
    public let path: String
    public let reason: String

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    public var description: String { "\(path): \(reason)" }
}
