import Glibc

/// What a path names, from stat(2), without opening it: loaders check it first, since opening a
/// FIFO for reading waits for a writer (forever, for a path typed by mistake), and a directory or
/// a device is no instrument, kit or sample.
///
/// - Thread: control. For every member.
public enum FileKind: Equatable, Sendable {
    case missing, regular, directory, fifo, characterDevice, blockDevice, socket, other

    /// The kind of what `path` names, symbolic links followed; `missing` when stat fails.
    /// - Thread: control.
    public init(path: String) {
        var status = stat()
        guard stat(path, &status) == 0 else {
            self = .missing
            return
        }
        switch status.st_mode & S_IFMT {
        case S_IFREG: self = .regular
        case S_IFDIR: self = .directory
        case S_IFIFO: self = .fifo
        case S_IFCHR: self = .characterDevice
        case S_IFBLK: self = .blockDevice
        case S_IFSOCK: self = .socket
        default: self = .other
        }
    }

    /// The kind in words, for messages: "a directory", "a FIFO".
    /// - Thread: any.
    public var noun: String {
        switch self {
        case .missing: "missing"
        case .regular: "a regular file"
        case .directory: "a directory"
        case .fifo: "a FIFO"
        case .characterDevice: "a character device"
        case .blockDevice: "a block device"
        case .socket: "a socket"
        case .other: "not a regular file"
        }
    }

    /// Why `path` cannot be read as a file: nil for a regular file, "is a FIFO, not a regular
    /// file" and so on otherwise. A missing path is left to the opener, whose errno says it best.
    /// - Thread: control.
    public static func notRegularFileReason(_ path: String) -> String? {
        let kind = FileKind(path: path)
        guard kind != .regular, kind != .missing else { return nil }
        return "is \(kind.noun), not a regular file"
    }
}
