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
    /// The name the user knows the capture side by, and what it granted; nil without capture.
    var captureDevice: String? { get }
    var grantedCapture: GrantedConfiguration? { get }
    /// True when capture and playback start and stop together.
    var isLinked: Bool { get }
    /// True when capture and playback run on one clock: nothing to resample.
    var sharesClock: Bool { get }
    /// How long the device may take no frames at all before the stream gives up on it.
    var stallTimeoutMilliseconds: Int32 { get }
    /// What the backend has to say about itself once started, a line each.
    var details: [String] { get }
    /// What the backend kept of its output, interleaved; empty for a real device.
    var recordedOutput: [Float] { get }
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
