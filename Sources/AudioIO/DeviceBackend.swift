import DeviceCore

/// What `PlaybackStream` asks of a backend (ALSA, JACK, null): to own a device and the thread or
/// callback that calls its `StreamCore` once a period, and to say how it ended. Everything else a
/// stream has (the frame limit, the stop request, the counters, the records) is the core's.
///
/// - Thread: control. For every member.
protocol DeviceBackend: AnyObject {
    /// The core the backend calls, made by the backend at init with its capture channel count.
    var core: StreamCore { get }
    /// What the device or server granted.
    var granted: GrantedConfiguration { get }
    /// The name the user knows the output by (an ALSA PCM, a JACK client's ports).
    var device: String { get }
    /// Starts calling the core; returns once the audio thread's scheduling is known.
    func start() throws(DeviceError)
    /// The scheduling the audio thread got (`.notRequested` before `start`).
    var realtimeScheduling: RealtimeScheduling { get }
    /// True once the audio thread will not call the core again: the frame limit played and
    /// drained, a stop request honoured, or the device failed.
    var isDone: Bool { get }
    /// When the audio thread ended, on `MonotonicClock` (seconds); nil while it runs.
    var endSeconds: Double? { get }
    /// Waits for the audio thread to end, releases the device and closes the core's records.
    func join()
    /// Why the device failed, once `isDone`; nil when it did not.
    var failure: DeviceError? { get }
}
