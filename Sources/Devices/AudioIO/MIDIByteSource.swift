import CALSA
import FileChecks
import Glibc

/// Where live MIDI bytes come from: a raw MIDI device (`snd_rawmidi`, e.g. `hw:1,0,0`), or any
/// file, FIFO or standard input (`-`) holding a MIDI byte stream. Reads never block; the control
/// thread polls it between its other work and feeds the bytes to a `MIDIStreamParser`.
///
/// - Thread: control. For every member.
public final class MIDIByteSource {
    /// - Thread: control.
    public let name: String
    private enum Handle {
        case descriptor(Int32, ownsIt: Bool)
        case rawMIDI(OpaquePointer)
    }
    private let handle: Handle
    private var ended = false

    /// Opens `path`: `-` is standard input; an existing path is opened as a file or FIFO (waiting
    /// for the FIFO's writer to open it); any other name is tried as an ALSA raw MIDI device.
    /// - Throws: `DeviceError` in one line naming the source.
    /// - Thread: control.
    public init(path: String) throws(DeviceError) {
        name = path
        if path == "-" {
            handle = .descriptor(STDIN_FILENO, ownsIt: false)
        } else if access(path, F_OK) == 0 {
            // A directory (or socket, or disk) reads as nothing at all: silence, with no word why.
            let kind = FileKind(path: path)
            guard [.regular, .fifo, .characterDevice].contains(kind) else {
                throw DeviceError(device: path, message: "is \(kind.noun): MIDI comes from a file, a FIFO, a character device or - (stdin)")
            }
            // A FIFO opens once a writer has: before that, a read would see end-of-file at once.
            let isFIFO = kind == .fifo
            var descriptor: Int32
            repeat {
                descriptor = open(path, O_RDONLY | O_CLOEXEC | (isFIFO ? 0 : O_NONBLOCK))
            } while descriptor < 0 && errno == EINTR
            guard descriptor >= 0 else {
                throw DeviceError(device: path, message: "cannot read MIDI from it: \(String(cString: strerror(errno)))")
            }
            if isFIFO { _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK) }
            handle = .descriptor(descriptor, ownsIt: true)
        } else {
            LibraryDiagnostics.quietOnce()
            var input: OpaquePointer?
            let result = snd_rawmidi_open(&input, nil, path, Int32(SND_RAWMIDI_NONBLOCK))
            guard result >= 0, let input else {
                throw DeviceError(device: path, message: "no such file, and no raw MIDI device of that name (\(ALSAError(returned: result))); 'amidi -l' lists raw MIDI ports")
            }
            handle = .rawMIDI(input)
        }
    }

    deinit {
        switch handle {
        case let .descriptor(descriptor, ownsIt): if ownsIt { close(descriptor) }
        case let .rawMIDI(input): snd_rawmidi_close(input)
        }
    }

    /// True once the source has ended (end of file, the FIFO's writer closed, the device vanished).
    /// - Thread: control.
    public var isAtEnd: Bool { ended }

    /// The bytes waiting now, without blocking (`read(2)` or `snd_rawmidi_read`, retrying EINTR).
    /// - Thread: control.
    public func readAvailable() -> [UInt8] {
        guard !ended else { return [] }
        var buffer = [UInt8](repeating: 0, count: 1_024)
        while true {
            let count: Int = buffer.withUnsafeMutableBytes { bytes in
                switch handle {
                case let .descriptor(descriptor, _):
                    var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                    guard poll(&ready, 1, 0) > 0 else { return -Int(EAGAIN) }
                    let count = read(descriptor, bytes.baseAddress, bytes.count)
                    return count < 0 ? -Int(errno) : count
                case let .rawMIDI(input):
                    return snd_rawmidi_read(input, bytes.baseAddress, bytes.count)
                }
            }
            if count == -Int(EINTR) { continue }
            if count == -Int(EAGAIN) { return [] }
            if count <= 0 {
                ended = true  // 0: end of file; < 0: the device is gone
                return []
            }
            return Array(buffer[..<count])
        }
    }
}
