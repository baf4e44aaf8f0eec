/// What the ALSA backend does about an error from a transfer or a wait: the recovery policy, apart
/// from the device calls that carry it out (`ALSADevice.recover`), so that it is tested on its own.
///
/// - Thread: any. A value.
enum ALSARecovery: Equatable {
    /// Nothing to do: the call found nothing yet (`EAGAIN`) or a signal interrupted it (`EINTR`).
    case retry
    /// An xrun on a playback-only stream: count it, prepare the PCM, go on.
    case prepare
    /// An xrun on a duplex stream: count it and restart both sides, pre-filled again, so that the
    /// output is again ahead of the input by the pre-fill.
    case restartDuplex
    /// A suspend (system sleep): resume, waiting while the driver says it is not ready yet
    /// (`resumeAttempts` times, `resumeWaitMicroseconds` apart), then prepare if resuming failed.
    case resume
    /// The device is gone or broken: the stream ends with this error, named.
    case fail

    /// How often, and how far apart, a suspended PCM is asked to resume before it is prepared.
    static let resumeAttempts = 100
    static let resumeWaitMicroseconds: UInt32 = 10_000

    /// The action for `code` on a stream that is duplex or not.
    init(for code: ALSAError, duplex: Bool) {
        switch code {
        case .xrun: self = duplex ? .restartDuplex : .prepare
        case .suspended: self = .resume
        case .wouldBlock, .interrupted: self = .retry
        default: self = .fail
        }
    }
}
