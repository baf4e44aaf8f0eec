import Glibc

/// A failure to read or write an audio file, with the path and what went wrong, ready to print as
/// one line.
public struct AudioFileError: Error, CustomStringConvertible, Equatable {
    public let path: String
    public let reason: String
    /// The system's `errno` when the failure came from the file system (a full disk: `ENOSPC`).
    public let systemErrorCode: Int32?

    /// - Thread: any.
    public init(path: String, reason: String, systemErrorCode: Int32? = nil) {
        self.path = path
        self.reason = reason
        self.systemErrorCode = systemErrorCode
    }

    /// True when the disk (or the quota) had no room left for the write.
    /// - Thread: any.
    public var isDiskFull: Bool { systemErrorCode == ENOSPC || systemErrorCode == EDQUOT }

    /// - Thread: any.
    public var description: String { "\(path): \(reason)" }
}
