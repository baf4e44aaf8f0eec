// The stream core, its clock and its records are part of what a stream user sees.
@_exported import DeviceCore
import Glibc
import Render

/// A renderer playing through a device: the control API every live command and `staccato-bench`
/// uses, whatever the backend under it.
///
/// A stream is a backend (`ALSADevice`, `JACKDevice`, `NullDevice`) that owns the device and the
/// thread or callback of the audio thread, calling one `StreamCore` once a period; the core renders,
/// counts and records. So every backend plays the same frames, stops and finishes alike, and
/// reports the same counters; what differs (xrun recovery, drift, server conventions) is the
/// backend's own.
///
/// - Thread: control. For every member; the audio thread is the backend's.
public final class PlaybackStream: @unchecked Sendable {
    /// One period of the audio thread, in nanoseconds on `MonotonicClock`.
    public typealias PeriodTiming = DeviceCore.PeriodTiming

    /// Why the audio thread ended.
    public enum Outcome: Sendable, Equatable {
        /// Played the requested number of frames and let them drain.
        case finished
        /// `stop()` was called.
        case stopped
        /// The device failed; the stream cannot continue.
        case failed(DeviceError)
    }

    /// Which backend a stream runs on.
    public enum Backend: String, Sendable, Equatable, CaseIterable {
        /// An ALSA PCM (a card, `default`, PipeWire's or PulseAudio's ALSA plugin, the jack plugin).
        case alsa
        /// A native JACK client (JACK, or PipeWire's JACK library through `pw-jack`).
        case jack
        /// No device: a clock of its own, paced or free-running (tests, measurements).
        case null
    }

    /// - Thread: control.
    public let backend: Backend
    /// The output's name: the ALSA PCM, the JACK client, `null`.
    /// - Thread: control.
    public var device: String { implementation.device }
    /// - Thread: control.
    public var granted: GrantedConfiguration { implementation.granted }
    /// The capture device of a duplex ALSA stream, and what it granted (its channel count may
    /// differ); for JACK, the client again and its input ports.
    /// - Thread: control.
    public var captureDevice: String? { implementation.captureDevice }
    /// - Thread: control.
    public var grantedCapture: GrantedConfiguration? { implementation.grantedCapture }
    /// True when capture and playback start and stop together: linked ALSA PCMs, or one JACK
    /// client (one server clock for both).
    /// - Thread: control.
    public var isLinked: Bool { implementation.isLinked }
    /// True when capture and playback run on one clock (linked ALSA PCMs, one ALSA device opened
    /// both ways, a JACK client, the null device): nothing to resample.
    /// - Thread: control.
    public var sharesClock: Bool { implementation.sharesClock }
    /// How long the device may take no frames at all before the stream gives up on it.
    /// - Thread: control.
    public var stallTimeoutMilliseconds: Int32 { implementation.stallTimeoutMilliseconds }
    /// The core the backend calls (counters, records).
    /// - Thread: control.
    public var core: StreamCore { implementation.core }

    private let implementation: DeviceBackend
    private var startTime = 0.0

    /// An ALSA stream: opens and configures `device` (and `captureDevice`, first, for a duplex
    /// stream). Nothing plays until `start`.
    /// - Throws: `DeviceError` with a one-line message naming the device.
    /// - Thread: control. Not real-time safe: allocates.
    public convenience init(device: String, configuration: StreamConfiguration, renderer: Renderer,
                            captureDevice: String? = nil) throws(DeviceError) {
        try Self.checkMatches(configuration, renderer, device: device)
        let alsa = try ALSADevice(device: device, configuration: configuration, renderer: renderer, captureDevice: captureDevice)
        self.init(backend: .alsa, implementation: alsa)
    }

    /// A native JACK stream on `client`: output ports `out_1`... (the renderer's channels), input
    /// ports `in_1`... when `inputChannelCount` > 0, and a MIDI input port `midi_in` when asked.
    /// The renderer must run at the server's rate (`client.sampleRate`). Ports are connected at
    /// `start`, as `connect`, `connectInputs` and `connectMIDI` say.
    /// - Throws: `DeviceError` in one line naming the server or the client.
    /// - Thread: control. Not real-time safe: allocates.
    public convenience init(jack client: JACKClient, configuration: StreamConfiguration, renderer: Renderer,
                            inputChannelCount: Int = 0, midiInput: Bool = false,
                            connect: JACKClient.Connection = .automatic, connectInputs: JACKClient.Connection = .automatic,
                            connectMIDI: JACKClient.Connection = .automatic) throws(DeviceError) {
        let jack = try JACKDevice(client: client, configuration: configuration, renderer: renderer,
                                  inputChannelCount: inputChannelCount, midiInput: midiInput,
                                  connections: JACKDevice.Connections(outputs: connect, inputs: connectInputs, midi: connectMIDI))
        self.init(backend: .jack, implementation: jack)
    }

    /// What a null stream paces by, takes in and keeps.
    public struct NullOptions: Sendable, Equatable {
        /// How the null device's thread keeps time.
        public enum Pacing: Sendable, Equatable {
            /// A period every period's worth of wall-clock time, as a sound card would.
            case realtime
            /// As fast as it renders.
            case freeRunning
        }
        public var pacing = Pacing.realtime
        /// Channels of `input`; 0 for a stream with no capture.
        public var inputChannelCount = 0
        /// The captured signal, interleaved, looped; empty is silence.
        public var input: [Float] = []
        /// Output frames to keep for `recordedOutput`.
        public var outputRecordingFrameCount = 0

        /// - Thread: any.
        public init(pacing: Pacing = .realtime, inputChannelCount: Int = 0, input: [Float] = [], outputRecordingFrameCount: Int = 0) {
            self.pacing = pacing
            self.inputChannelCount = inputChannelCount
            self.input = input
            self.outputRecordingFrameCount = outputRecordingFrameCount
        }
    }

    /// A stream on no device (`NullOptions`): for tests without any server, and `--audio null`.
    /// - Thread: control. Not real-time safe: allocates.
    public convenience init(null options: NullOptions = NullOptions(), configuration: StreamConfiguration, renderer: Renderer) throws(DeviceError) {
        try Self.checkMatches(configuration, renderer, device: "null")
        self.init(backend: .null, implementation: NullDevice(configuration: configuration, renderer: renderer, options: options))
    }

    init(backend: Backend, implementation: DeviceBackend) {
        self.backend = backend
        self.implementation = implementation
    }

    static func checkMatches(_ configuration: StreamConfiguration, _ renderer: Renderer, device: String) throws(DeviceError) {
        guard configuration.channelCount == renderer.configuration.channelCount,
              Double(configuration.sampleRate) == renderer.configuration.sampleRate else {
            throw DeviceError(device: device, message: "stream asks for \(configuration.channelCount) ch at \(configuration.sampleRate) Hz but the renderer makes \(renderer.configuration.channelCount) ch at \(Int(renderer.configuration.sampleRate)) Hz")
        }
    }

    deinit {
        stop()
        implementation.join()
    }

    /// Starts the audio thread. With `frameLimit`, it plays that many frames, lets them drain and
    /// ends with `.finished`. Returns once the thread has tried for real-time scheduling.
    /// - Thread: control.
    public func start(frameLimit: Int? = nil) throws(DeviceError) {
        isStarted = true
        core.start(frameLimit: frameLimit)
        startTime = MonotonicClock.seconds()
        try implementation.start()
        // The renderer's voice workers share the audio thread's deadline: they run as it does.
        if case let .fifo(priority) = implementation.realtimeScheduling { core.renderer.setVoiceWorkerPriority(priority) }
        core.renderer.setVoiceWorkersPaced(true)
    }

    /// The scheduling the audio thread got.
    /// - Thread: control.
    public var realtimeScheduling: RealtimeScheduling { implementation.realtimeScheduling }

    /// Whether `start` has been called: a stream starts once.
    /// - Thread: control.
    public private(set) var isStarted = false

    /// Xruns so far (recovered by the backend, or reported by the server).
    /// - Thread: control.
    public var xrunCount: Int { core.xrunCount }
    /// Frames handed to the device so far.
    /// - Thread: control.
    public var framesWritten: Int { core.framesWritten }
    /// Duplex ALSA on two clocks: how far from 1 the ratio is at which the captured signal is
    /// resampled to hold the latency (`DriftCorrector`), in parts per million; 0 on one clock.
    /// - Thread: control.
    public var resamplingPartsPerMillion: Double { core.resamplingPartsPerMillion }
    /// Duplex only: the microphone-to-speaker latency in frames. ALSA measures it (`snd_pcm_avail`
    /// of capture plus `snd_pcm_delay` of playback, right after a write, averaged over half a
    /// second; nil for the first half second, while the devices settle); JACK reports it (the
    /// capture and playback latency of the connected ports).
    /// - Thread: control.
    public var latencyFrameCount: Int? { core.latencyFrameCount }
    /// Duplex only: of that, the frames Staccato itself buffers: how far the output stream runs
    /// ahead of the input stream (ALSA: the silence pre-filled and the capture resampler's two
    /// frames of look-ahead, plus what it has stretched or shrunk; JACK: none). The rest is buffering inside the devices and their server.
    /// - Thread: control.
    public var streamOffsetFrameCount: Int? { core.streamOffsetFrameCount }
    /// The timing of the first `StreamConfiguration.timingCapacity` periods, in order; empty while
    /// the audio thread runs (it owns the record until it ends).
    /// - Thread: control.
    public var periodTimings: [PeriodTiming] { core.periodTimings }
    /// Duplex: the first `StreamConfiguration.captureRecordingFrameCount` captured frames as float,
    /// interleaved with `grantedCapture`'s channel count, as the renderer took them (through the
    /// ALSA capture resampler: two frames late, stretched by its ratio); empty while
    /// the audio thread runs.
    /// - Thread: control.
    public var capturedFrames: [Float] { core.capturedFrames }

    /// What the backend has to say about itself once started, a line each: for JACK, the
    /// server's latency for the ports and what they were connected to; nothing for the others.
    /// - Thread: control.
    public var details: [String] { implementation.details }

    /// A null stream's output, interleaved, up to `NullOptions.outputRecordingFrameCount` frames;
    /// empty for the other backends and while the audio thread runs.
    /// - Thread: control.
    public var recordedOutput: [Float] { implementation.recordedOutput }

    /// True once the audio thread has ended, for any reason.
    /// - Thread: control.
    public var isDone: Bool { implementation.isDone }

    /// Wall-clock seconds from `start` to the end of the audio thread (or to now, while running).
    /// - Thread: control.
    public var elapsedSeconds: Double { (implementation.endSeconds ?? MonotonicClock.seconds()) - startTime }

    /// Asks the audio thread to stop after its current period. Does not wait.
    /// - Thread: control.
    public func stop() { core.requestStop() }

    /// Waits for the audio thread to end and says why it ended.
    /// - Thread: control.
    @discardableResult
    public func join() -> Outcome {
        implementation.join()
        return outcome
    }

    /// Why the audio thread ended (meaningful once `isDone`).
    /// - Thread: control.
    public var outcome: Outcome {
        guard isDone else { return .stopped }
        if let failure = implementation.failure { return .failed(failure) }
        return core.isStopRequested && framesWritten < core.frameLimit ? .stopped : .finished
    }
}
