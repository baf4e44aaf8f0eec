import DeviceCore
import Glibc
import Render

/// The null backend: no device and no server, a device thread of its own that calls the stream
/// core once a period, paced by the monotonic clock as a sound card would be, or as fast as it
/// renders. Its input is a signal given up front (looped), or silence; its output goes nowhere but
/// into a recording kept for reading afterwards.
///
/// What it is for: the stream core's behaviour (frame limit, stop, counters, records, the frames
/// a period makes) tested without any server, and `--audio null` runs of the CLI.
///
/// - Thread: control. For every member; the device thread is private.
final class NullDevice: DeviceBackend, @unchecked Sendable {
    let core: StreamCore
    let granted: GrantedConfiguration
    let options: PlaybackStream.NullOptions
    private let output: UnsafeMutablePointer<Float>
    private let input: UnsafeMutablePointer<Float>
    private let inputFrameCount: Int
    private let recordingCapacity: Int  // samples
    private let recording: UnsafeMutablePointer<Float>
    private var recordingCount = 0  // samples; the device thread's until `thread.isDone`
    private let thread = DeviceThread()
    private let requestedPriority: Int32

    /// - Thread: control. Not real-time safe: allocates.
    init(configuration: StreamConfiguration, renderer: Renderer, options: PlaybackStream.NullOptions) {
        self.options = options
        let period = max(1, configuration.periodFrameCount)
        granted = GrantedConfiguration(format: .float32, sampleRate: configuration.sampleRate, channelCount: configuration.channelCount,
                                       periodFrameCount: period, bufferFrameCount: period * max(1, configuration.periodCount),
                                       requestedPeriodFrameCount: period)
        requestedPriority = options.pacing == .realtime ? configuration.realtimePriority : 0
        core = StreamCore(renderer: renderer, inputChannelCount: options.inputChannelCount, timingCapacity: configuration.timingCapacity,
                          captureRecordingFrameCount: configuration.captureRecordingFrameCount)
        output = .allocate(capacity: period * configuration.channelCount)
        output.initialize(repeating: 0, count: period * configuration.channelCount)
        let inputChannels = max(1, options.inputChannelCount)
        inputFrameCount = max(1, options.input.count / inputChannels)
        // One period past the end too, so that a period is always one contiguous read of the loop.
        input = .allocate(capacity: (inputFrameCount + period) * inputChannels)
        for frame in 0..<(inputFrameCount + period) {
            for channel in 0..<inputChannels {
                let source = (frame % inputFrameCount) * inputChannels + channel
                input[frame * inputChannels + channel] = source < options.input.count ? options.input[source] : 0
            }
        }
        recordingCapacity = max(0, options.outputRecordingFrameCount) * configuration.channelCount
        recording = .allocate(capacity: max(1, recordingCapacity))
        recording.initialize(repeating: 0, count: max(1, recordingCapacity))
    }

    deinit {
        core.requestStop()
        join()
        output.deallocate()
        input.deallocate()
        recording.deallocate()
    }

    var device: String { "null" }
    var captureDevice: String? { options.inputChannelCount > 0 ? "null" : nil }
    var grantedCapture: GrantedConfiguration? {
        guard options.inputChannelCount > 0 else { return nil }
        var capture = granted
        capture.channelCount = options.inputChannelCount
        return capture
    }
    /// One thread reads the input and writes the output: one clock, started together.
    var isLinked: Bool { options.inputChannelCount > 0 }
    var sharesClock: Bool { true }
    /// Its clock is its own: it never stalls.
    var stallTimeoutMilliseconds: Int32 { 0 }
    var details: [String] { [] }

    func start() throws(DeviceError) {
        try thread.start(for: device, priority: requestedPriority) { self.runDeviceThread() }
    }

    var realtimeScheduling: RealtimeScheduling { thread.realtimeScheduling }
    var isDone: Bool { thread.isDone }
    var endSeconds: Double? { thread.endSeconds }
    var failure: DeviceError? { nil }
    func join() { thread.join() }

    /// What the device thread output, interleaved, up to `NullOptions.outputRecordingFrameCount`
    /// frames; empty while it runs.
    var recordedOutput: [Float] {
        guard isDone else { return [] }
        return Array(UnsafeBufferPointer(start: recording, count: recordingCount))
    }

    /// The device thread's whole life (`DeviceThread`, the real-time boundary): from here to its
    /// return, only the stream core and the C calls around it run.
    private func runDeviceThread() {
        let period = granted.periodFrameCount
        let periodNanoseconds = UInt64(period) * 1_000_000_000 / UInt64(granted.sampleRate)
        let inputChannels = max(1, options.inputChannelCount)
        var deadline = MonotonicClock.nanoseconds()
        var inputFrame = 0
        while true {
            if options.pacing == .realtime {
                deadline &+= periodNanoseconds
                var until = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
                while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, nil) == EINTR {}
            }
            let periodInput: UnsafePointer<Float>? = options.inputChannelCount > 0 ? UnsafePointer(input + inputFrame * inputChannels) : nil
            let progress = core.process(output: output, input: periodInput, frameCount: period, wakeup: core.timestamp())
            inputFrame = (inputFrame + period) % inputFrameCount
            let kept = min(period * granted.channelCount, recordingCapacity - recordingCount)
            (recording + recordingCount).update(from: output, count: kept)
            recordingCount += kept
            if progress != .playing { break }
        }
        core.closeRecords()
    }
}
