import CALSA
import Glibc

/// An error code from alsa-lib: the positive `errno` value behind the negative number it returned.
public struct ALSAError: Error, RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int32
    /// - Thread: any.
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// From a negative alsa-lib return value.
    init(returned code: some BinaryInteger) { rawValue = Int32(truncatingIfNeeded: 0 - Int(code)) }

    /// `EPIPE`: an xrun (playback ran dry, or capture overflowed).
    public static let xrun = ALSAError(rawValue: EPIPE)
    /// `ESTRPIPE`: the device was suspended (system sleep).
    public static let suspended = ALSAError(rawValue: ESTRPIPE)
    /// `EAGAIN`: a non-blocking call found nothing to do yet.
    public static let wouldBlock = ALSAError(rawValue: EAGAIN)
    /// `EINTR`: a signal interrupted a wait.
    public static let interrupted = ALSAError(rawValue: EINTR)
    /// `ENODEV`: the device went away (unplugged, server gone).
    public static let noDevice = ALSAError(rawValue: ENODEV)
    /// `EBADFD`: the PCM is in a state where the call makes no sense, typically after a disconnect.
    public static let badState = ALSAError(rawValue: EBADFD)
    /// `EIO`: an I/O error from the driver or plugin.
    public static let io = ALSAError(rawValue: EIO)
    /// `EBUSY`: another program holds the device.
    public static let busy = ALSAError(rawValue: EBUSY)
    /// `ENOENT`: no such device (or, for the jack plugin, no JACK server running).
    public static let notFound = ALSAError(rawValue: ENOENT)
    /// `EINVAL`: the device refused a value (a format, rate or size it does not support).
    public static let invalid = ALSAError(rawValue: EINVAL)

    /// alsa-lib's own text for the code (`snd_strerror`).
    /// - Thread: any.
    public var description: String { String(cString: snd_strerror(-rawValue)) }

    /// True when the device is gone for good and waiting or recovering cannot help.
    /// - Thread: any.
    public var isDisconnection: Bool { self == .noDevice || self == .badState || self == .io }
}

/// Something wrong with a named device, as one line a user can act on.
public struct DeviceError: Error, CustomStringConvertible, Equatable, Sendable {
    public let device: String
    public let message: String
    /// The alsa-lib code behind it, when there was one.
    public let code: ALSAError?

    /// What the line names first: `device 'NAME'` for an ALSA device, the server or client for JACK.
    public let subject: String

    /// - Thread: any.
    public init(device: String, message: String, code: ALSAError? = nil) {
        self.init(device: device, subject: "device '\(device)'", message: message, code: code)
    }

    /// An error whose line names `subject` rather than an ALSA device (`JACK server 'default'`).
    /// - Thread: any.
    public init(device: String, subject: String, message: String, code: ALSAError? = nil) {
        self.device = device
        self.subject = subject
        self.message = message
        self.code = code
    }

    /// - Thread: any.
    public var description: String { "\(subject): \(message)" }

    /// The message for a failure to open `device`, with the likely cause spelled out.
    static func openFailure(_ device: String, _ code: ALSAError) -> DeviceError {
        let message = switch code {
        case .busy: "busy: another program is using it (close it, or use a shared device such as 'default')"
        case .notFound: "not found (no such PCM or card; for a JACK-backed PCM, no JACK server is running); 'staccato devices' lists what exists"
        case .noDevice: "not present (the card or server is gone)"
        default: "cannot open: \(code)"
        }
        return DeviceError(device: device, message: message, code: code)
    }
}
