import CALSA
import Glibc
import Render
import Synchronization

/// Plays a `Renderer` through an ALSA playback device on a dedicated thread, optionally fed by a
/// capture device (duplex: the microphone of the effects graph).
///
/// Playback only, the device thread loops wait → render one period → convert → write. Duplex, it
/// loops wait for a captured period → read → convert → render with it as input → write: the
/// capture clock paces everything. Playback is pre-filled with silence (the buffer's whole periods
/// less one), both are started together (linked with `snd_pcm_link` where the devices allow it),
/// and clock drift
/// between two devices is absorbed by dropping or repeating one captured frame now and then
/// (counted). The capture device is opened and validated first, so a device with no input fails
/// before anything plays.
///
/// It recovers from xruns (`EPIPE` → prepare; duplex: both sides restart, pre-filled again) and
/// suspends (`ESTRPIPE` → resume), counts every xrun, and stops with a reason instead of spinning
/// or hanging when a device disappears (`ENODEV`, `EBADFD`, `EIO`) or stops moving frames
/// altogether (a dead sound server shows up as a wait that never ends).
///
/// - Thread: control. For every member; the device thread is private.
public final class PlaybackStream: @unchecked Sendable {
    /// One period of the device thread, in nanoseconds on `MonotonicClock`.
    /// - Thread: any. A value.
    public struct PeriodTiming: Sendable, Equatable {
        /// When the thread found a period's worth of room (playback) or of captured frames
        /// (duplex) ready: its wake-up from the wait, or the top of its loop when none was needed.
        /// - Thread: any.
        public var wakeup: UInt64
        /// - Thread: any.
        public var renderStart: UInt64
        /// - Thread: any.
        public var renderEnd: UInt64
    }

    /// Why the device thread ended.
    public enum Outcome: Sendable, Equatable {
        /// Played the requested number of frames and let them drain.
        case finished
        /// `stop()` was called.
        case stopped
        /// The device failed; the stream cannot continue.
        case failed(DeviceError)
    }

    /// - Thread: control.
    public let device: String
    /// - Thread: control.
    public let granted: GrantedConfiguration
    /// The capture device of a duplex stream, and what it granted (its channel count may differ).
    /// - Thread: control.
    public let captureDevice: String?
    /// - Thread: control.
    public let grantedCapture: GrantedConfiguration?
    /// True when capture and playback are linked (start and stop together in the driver).
    /// - Thread: control.
    public let isLinked: Bool
    /// How long the device may take no frames at all before the stream gives up on it.
    /// - Thread: control.
    public let stallTimeoutMilliseconds: Int32

    private let pcm: PCM
    private let capture: PCM?
    private let captureConversion: SampleConversion
    private let captureBuffer: UnsafeMutableRawPointer
    /// Captured frames as float, one period plus one frame (a repeated frame).
    private let inputBuffer: UnsafeMutablePointer<Float>
    private let captureBytesPerFrame: Int
    private let captureChannelCount: Int
    private let renderer: Renderer
    private let requestedPriority: Int32
    private let conversion: SampleConversion
    private let renderBuffer: UnsafeMutablePointer<Float>
    private let deviceBuffer: UnsafeMutableRawPointer
    private let bytesPerFrame: Int
    // Measurement records, sized at init so the device thread only stores into them; their counts
    // are device-thread state, read after `threadDone` like the failure fields below.
    private let timingCapacity: Int
    private let timings: UnsafeMutablePointer<PeriodTiming>
    private var timingCount = 0
    private let captureRecordingCapacity: Int  // samples
    private let captureRecording: UnsafeMutablePointer<Float>
    private var captureRecordingCount = 0  // samples

    private let stopRequested = Atomic<Bool>(false)
    private let threadDone = Atomic<Bool>(false)
    private let schedulingKnown = Atomic<Bool>(false)
    private let publishedXrunCount = Atomic<Int>(0)
    private let publishedFrameCount = Atomic<Int>(0)
    private let publishedDroppedInputFrames = Atomic<Int>(0)
    private let publishedRepeatedInputFrames = Atomic<Int>(0)
    private let publishedLatencyFrames = Atomic<Int>(-1)
    private let publishedStreamOffset = Atomic<Int>(-1)
    // Written by the device thread before `threadDone` is stored (release); read after it (acquire).
    private var failureCode: ALSAError?
    private var failureStage: StaticString = ""
    private var failureDevice: String?
    private var scheduling = RealtimeScheduling.notRequested
    private var frameLimit = Int.max
    /// When frames last moved (written to playback or read from capture), in nanoseconds on
    /// `MonotonicClock`: a device whose wait keeps answering "ready" while no frames move (a
    /// stream that never starts) must end in the stall failure, not spin forever.
    private var lastProgress: UInt64 = 0
    private var thread: pthread_t?
    private var startTime = 0.0
    private var endTime = 0.0

    /// Opens and configures `device` (and `captureDevice`, first, for a duplex stream). Nothing
    /// plays until `start`.
    /// - Throws: `DeviceError` with a one-line message naming the device.
    /// - Thread: control. Not real-time safe: allocates.
    public init(device: String, configuration: StreamConfiguration, renderer: Renderer,
                captureDevice: String? = nil) throws(DeviceError) {
        guard configuration.channelCount == renderer.configuration.channelCount,
              Double(configuration.sampleRate) == renderer.configuration.sampleRate else {
            throw DeviceError(device: device, message: "stream asks for \(configuration.channelCount) ch at \(configuration.sampleRate) Hz but the renderer makes \(renderer.configuration.channelCount) ch at \(Int(renderer.configuration.sampleRate)) Hz")
        }
        self.device = device
        self.captureDevice = captureDevice
        var capture: PCM?
        var grantedCapture: GrantedConfiguration?
        if let captureDevice {
            let input = try PCM.open(captureDevice, direction: .capture)
            grantedCapture = try input.configure(configuration)
            capture = input
        }
        let output = try PCM.open(device, direction: .playback)
        pcm = output
        granted = try output.configure(configuration)
        // Duplex renders a period plus the one frame a drift correction may repeat.
        let longestBlock = granted.periodFrameCount + (capture == nil ? 0 : 1)
        guard longestBlock <= renderer.configuration.maxFrameCount else {
            throw DeviceError(device: device, message: "offers no period near the \(configuration.periodFrameCount) frames asked for: it granted \(granted.periodFrameCount), longer than the renderer's \(renderer.configuration.maxFrameCount)-frame blocks (ask for --period \(granted.periodFrameCount))")
        }
        self.capture = capture
        self.grantedCapture = grantedCapture
        isLinked = capture.map { $0.link(to: output) } ?? false
        self.renderer = renderer
        requestedPriority = configuration.realtimePriority
        conversion = SampleConversion(granted.format)
        bytesPerFrame = granted.format.byteCount * granted.channelCount
        renderBuffer = .allocate(capacity: granted.periodFrameCount * granted.channelCount)
        deviceBuffer = .allocate(byteCount: granted.periodFrameCount * bytesPerFrame, alignment: 16)
        captureChannelCount = grantedCapture?.channelCount ?? 1
        captureConversion = SampleConversion(grantedCapture?.format ?? .float32)
        captureBytesPerFrame = (grantedCapture?.format.byteCount ?? 4) * captureChannelCount
        captureBuffer = .allocate(byteCount: (granted.periodFrameCount + 1) * captureBytesPerFrame, alignment: 16)
        inputBuffer = .allocate(capacity: (granted.periodFrameCount + 1) * captureChannelCount)
        timingCapacity = max(0, configuration.timingCapacity)
        timings = .allocate(capacity: max(1, timingCapacity))
        captureRecordingCapacity = capture == nil ? 0 : max(0, configuration.captureRecordingFrameCount) * captureChannelCount
        captureRecording = .allocate(capacity: max(1, captureRecordingCapacity))
        // Every buffer the device thread writes is written once now, so that none of its pages is
        // first touched (faulted in) on that thread.
        renderBuffer.initialize(repeating: 0, count: granted.periodFrameCount * granted.channelCount)
        deviceBuffer.initializeMemory(as: UInt8.self, repeating: 0, count: granted.periodFrameCount * bytesPerFrame)
        captureBuffer.initializeMemory(as: UInt8.self, repeating: 0, count: (granted.periodFrameCount + 1) * captureBytesPerFrame)
        inputBuffer.initialize(repeating: 0, count: (granted.periodFrameCount + 1) * captureChannelCount)
        UnsafeMutableRawPointer(timings).initializeMemory(as: UInt8.self, repeating: 0,
                                                          count: max(1, timingCapacity) * MemoryLayout<PeriodTiming>.stride)
        captureRecording.initialize(repeating: 0, count: max(1, captureRecordingCapacity))
        // A healthy device moves a period every period; allow for a scheduler hiccup of many
        // buffers, and no more: a vanished device must be reported within about 100 ms.
        stallTimeoutMilliseconds = Int32(max(80, 8 * granted.milliseconds(granted.bufferFrameCount)))
    }

    deinit {
        stop()
        _ = join()
        if isLinked { capture?.unlink() }
        renderBuffer.deallocate()
        deviceBuffer.deallocate()
        captureBuffer.deallocate()
        inputBuffer.deallocate()
        timings.deallocate()
        captureRecording.deallocate()
    }

    /// Starts the device thread. With `frameLimit`, it plays that many frames, lets them drain and
    /// ends with `.finished`. Returns once the thread has tried for real-time scheduling.
    /// - Thread: control.
    public func start(frameLimit: Int? = nil) throws(DeviceError) {
        precondition(thread == nil, "a stream starts once")
        self.frameLimit = frameLimit ?? .max
        startTime = MonotonicClock.seconds()
        var newThread = pthread_t()
        let context = Unmanaged.passRetained(self).toOpaque()
        let result = pthread_create(&newThread, nil, { context in
            let stream = Unmanaged<PlaybackStream>.fromOpaque(context!).takeRetainedValue()
            stream.runDeviceThread()
            return nil
        }, context)
        guard result == 0 else {
            Unmanaged<PlaybackStream>.fromOpaque(context).release()
            throw DeviceError(device: device, message: "cannot start the audio thread: \(String(cString: strerror(result)))")
        }
        thread = newThread
        while !schedulingKnown.load(ordering: .acquiring) { usleep(200) }
    }

    /// The scheduling the device thread got.
    /// - Thread: control.
    public var realtimeScheduling: RealtimeScheduling {
        schedulingKnown.load(ordering: .acquiring) ? scheduling : .notRequested
    }

    /// Xruns so far (underruns recovered by re-preparing the device).
    /// - Thread: control.
    public var xrunCount: Int { publishedXrunCount.load(ordering: .relaxed) }
    /// Frames handed to the device so far.
    /// - Thread: control.
    public var framesWritten: Int { publishedFrameCount.load(ordering: .relaxed) }
    /// Captured frames dropped (capture clock faster than playback) and repeated (slower).
    /// - Thread: control.
    public var droppedInputFrames: Int { publishedDroppedInputFrames.load(ordering: .relaxed) }
    /// - Thread: control.
    public var repeatedInputFrames: Int { publishedRepeatedInputFrames.load(ordering: .relaxed) }
    /// Duplex only: the measured microphone-to-speaker latency in frames (how long ago the next
    /// captured frame was captured, plus how long until it plays: `snd_pcm_avail` of capture plus
    /// `snd_pcm_delay` of playback, right after a write), averaged over the last half second; nil
    /// until measured (the first half second, while the devices settle, does not count).
    /// - Thread: control.
    public var latencyFrameCount: Int? {
        let frames = publishedLatencyFrames.load(ordering: .relaxed)
        return frames < 0 ? nil : frames
    }
    /// Duplex only: of that, the frames Staccato itself buffers: how far the output stream runs
    /// ahead of the input stream (the silence pre-filled, plus repeated, minus dropped frames). The
    /// rest is buffering inside the devices and their server.
    /// - Thread: control.
    public var streamOffsetFrameCount: Int? {
        let frames = publishedStreamOffset.load(ordering: .relaxed)
        return frames < 0 ? nil : frames
    }
    /// The timing of the first `StreamConfiguration.timingCapacity` periods, in order; empty while
    /// the device thread runs (it owns the record until it ends).
    /// - Thread: control.
    public var periodTimings: [PeriodTiming] {
        guard isDone else { return [] }
        return Array(UnsafeBufferPointer(start: timings, count: timingCount))
    }

    /// Duplex: the first `StreamConfiguration.captureRecordingFrameCount` captured frames as float,
    /// interleaved with `grantedCapture`'s channel count, in the order the device thread read them
    /// (frame i was read while rendering frame i, give or take a drift correction); empty while
    /// the device thread runs.
    /// - Thread: control.
    public var capturedFrames: [Float] {
        guard isDone else { return [] }
        return Array(UnsafeBufferPointer(start: captureRecording, count: captureRecordingCount))
    }

    /// True once the device thread has ended, for any reason.
    /// - Thread: control.
    public var isDone: Bool { threadDone.load(ordering: .acquiring) }

    /// Wall-clock seconds from `start` to the end of the device thread (or to now, while running).
    /// - Thread: control.
    public var elapsedSeconds: Double {
        (isDone ? endTime : MonotonicClock.seconds()) - startTime
    }

    /// Asks the device thread to stop after its current period. Does not wait.
    /// - Thread: control.
    public func stop() { stopRequested.store(true, ordering: .relaxed) }

    /// Waits for the device thread to end and says why it ended.
    /// - Thread: control.
    @discardableResult
    public func join() -> Outcome {
        if let thread {
            pthread_join(thread, nil)
            self.thread = nil
        }
        return outcome
    }

    /// Why the device thread ended (meaningful once `isDone`).
    /// - Thread: control.
    public var outcome: Outcome {
        guard isDone else { return .stopped }
        if let failureCode {
            let message: String = switch failureCode {
            case .wouldBlock: "stopped \(failureDevice == nil ? "taking" : "delivering") audio for \(stallTimeoutMilliseconds) ms (device stalled, or its sound server died)"
            case .noDevice, .badState: "disconnected while \(failureStage) (\(failureCode))"
            default: "failed while \(failureStage): \(failureCode)"
            }
            return .failed(DeviceError(device: failureDevice ?? device, message: message, code: failureCode))
        }
        return stopRequested.load(ordering: .relaxed) && framesWritten < frameLimit ? .stopped : .finished
    }

    // MARK: Device thread

    private func runDeviceThread() {
        scheduling = .promoteCurrentThread(priority: requestedPriority)
        schedulingKnown.store(true, ordering: .releasing)
        if let failure = capture == nil ? playLoop() : duplexLoop() {
            failureCode = failure.code
            failureStage = failure.stage
            if failure.onCapture { failureDevice = captureDevice }
            pcm.drop()
            capture?.drop()
        }
        endTime = MonotonicClock.seconds()
        threadDone.store(true, ordering: .releasing)
    }

    private struct Failure {
        let code: ALSAError
        let stage: StaticString
        var onCapture = false

        func onCaptureSide() -> Failure {
            var copy = self
            copy.onCapture = true
            return copy
        }
    }

    /// Plays until the frame limit, a stop request or a failure. Returns the failure, if any.
    private func playLoop() -> Failure? {
        let periodFrameCount = granted.periodFrameCount
        var written = 0
        lastProgress = MonotonicClock.nanoseconds()
        while written < frameLimit {
            if stopRequested.load(ordering: .relaxed) {
                pcm.drop()
                return nil
            }
            let wakeup = timestamp()
            switch pcm.availableFrameCount() {
            case let .failure(code):
                if let failure = recover(code, stage: "checking free space") { return failure }
                continue
            case let .success(available) where available < periodFrameCount:
                if let failure = waitForRoom() { return failure }
                continue
            case .success:
                break
            }
            let frameCount = min(periodFrameCount, frameLimit - written)
            let renderStart = timestamp()
            renderer.render(into: renderBuffer, frameCount: frameCount)
            recordTiming(PeriodTiming(wakeup: wakeup, renderStart: renderStart, renderEnd: timestamp()))
            conversion.convert(renderBuffer, count: frameCount * granted.channelCount, into: deviceBuffer)
            if let failure = writeAll(frameCount) { return failure }
            written += frameCount
            publishedFrameCount.store(written, ordering: .relaxed)
        }
        return drain()
    }

    /// Now, when timing is recorded: a stream that records nothing pays no clock reads.
    @inline(__always)
    private func timestamp() -> UInt64 { timingCapacity > 0 ? MonotonicClock.nanoseconds() : 0 }

    @inline(__always)
    private func recordTiming(_ timing: PeriodTiming) {
        guard timingCount < timingCapacity else { return }
        timings[timingCount] = timing
        timingCount += 1
    }

    /// True once no frames have moved for the stall timeout, however often the wait said ready.
    private var stalledWithoutProgress: Bool {
        MonotonicClock.nanoseconds() &- lastProgress > UInt64(stallTimeoutMilliseconds) * 1_000_000
    }

    private func waitForRoom() -> Failure? {
        switch pcm.wait(milliseconds: stallTimeoutMilliseconds) {
        case .success(true): return stalledWithoutProgress ? Failure(code: .wouldBlock, stage: "waiting for the device") : nil
        case .success(false): return Failure(code: .wouldBlock, stage: "waiting for the device")
        case let .failure(code): return recover(code, stage: "waiting for the device")
        }
    }

    /// Writes one converted period, resuming after partial writes and xruns.
    private func writeAll(_ frameCount: Int) -> Failure? {
        var offset = 0
        while offset < frameCount {
            switch pcm.write(deviceBuffer + offset * bytesPerFrame, frameCount: frameCount - offset) {
            case let .success(count):
                offset += count
                if count > 0 { lastProgress = MonotonicClock.nanoseconds() }
            case .failure(.wouldBlock):
                if let failure = waitForRoom() { return failure }
            case let .failure(code):
                if let failure = recover(code, stage: "writing") { return failure }
            }
        }
        return nil
    }

    /// Handles a transfer error; returns a failure only when the stream cannot go on.
    private func recover(_ code: ALSAError, stage: StaticString) -> Failure? {
        switch code {
        case .xrun:
            publishedXrunCount.add(1, ordering: .relaxed)
            renderer.report(.xrun(frameTime: renderer.renderedFrameTime))
            if capture != nil { return startDuplex() }
            return pcm.prepare().map { Failure(code: $0, stage: "recovering from an xrun") }
        case .suspended:
            var result = pcm.resume()
            var attempts = 0
            while result == .wouldBlock, attempts < 100 {
                usleep(10_000)
                attempts += 1
                result = pcm.resume()
            }
            if result == nil { return nil }
            return pcm.prepare().map { Failure(code: $0, stage: "resuming after a suspend") }
        case .wouldBlock, .interrupted:
            return nil
        default:
            return Failure(code: code, stage: stage)
        }
    }

    // MARK: Duplex

    /// (Re)starts both sides: drop whatever is queued, prepare, pre-fill playback with silence
    /// (the buffer's whole periods less one: the first captured period arrives just as that much
    /// has played),
    /// then start playback and capture together.
    private func startDuplex() -> Failure? {
        guard let capture else { return nil }
        pcm.drop()
        if !isLinked { capture.drop() }
        if let code = pcm.prepare() { return Failure(code: code, stage: "preparing playback") }
        if !isLinked, let code = capture.prepare() { return Failure(code: code, stage: "preparing capture", onCapture: true) }
        // Whole periods, like the playback start threshold: the pre-fill plus the first rendered
        // period is the most of the buffer whole periods fill (a 176-frame buffer of 58-frame
        // periods takes 116 + 58).
        let prefill = PCM.wholePeriodFrameCount(granted.bufferFrameCount, period: granted.periodFrameCount) - granted.periodFrameCount
        deviceBuffer.initializeMemory(as: UInt8.self, repeating: 0, count: granted.periodFrameCount * bytesPerFrame)
        var queued = 0
        while queued < prefill {
            let count = min(granted.periodFrameCount, prefill - queued)
            switch pcm.write(deviceBuffer, frameCount: count) {
            case let .success(written): queued += written
            case .failure(.wouldBlock), .failure(.interrupted): continue
            case let .failure(code): return Failure(code: code, stage: "pre-filling playback")
            }
        }
        if let code = pcm.start() { return Failure(code: code, stage: "starting playback") }
        if !isLinked, let code = capture.start() { return Failure(code: code, stage: "starting capture", onCapture: true) }
        driftBaseline = nil
        previousWindowLatency = nil
        warmUpWindows = 0
        latencySum = 0
        driftSamples = 0
        publishedStreamOffset.store(prefill, ordering: .relaxed)
        lastProgress = MonotonicClock.nanoseconds()
        return nil
    }

    /// The latency averaged per window; the first settled window's average is the baseline that
    /// drift corrections hold it to.
    private var driftBaseline: Double?
    private var previousWindowLatency: Double?
    private var latencySum = 0.0
    private var driftSamples = 0
    private var warmUpWindows = 0

    /// Moves audio from capture through the renderer to playback until the frame limit, a stop
    /// request or a failure. Returns the failure, if any.
    private func duplexLoop() -> Failure? {
        guard let capture else { return nil }
        if let failure = startDuplex() { return failure }
        let periodFrameCount = granted.periodFrameCount
        var consumed = 0  // captured frames taken (the frame limit counts these)
        var written = 0
        var pendingCorrection = 0  // > 0: frames to repeat, one per period; < 0: frames to drop
        while consumed < frameLimit {
            if stopRequested.load(ordering: .relaxed) {
                pcm.drop()
                capture.drop()
                return nil
            }
            let wakeup = timestamp()
            switch capture.availableFrameCount() {
            case let .failure(code):
                if let failure = recover(code, stage: "checking captured frames") { return failure.onCaptureSide() }
                continue
            case let .success(available) where available < periodFrameCount:
                switch capture.wait(milliseconds: stallTimeoutMilliseconds) {
                case .success(true) where !stalledWithoutProgress: continue
                case .success: return Failure(code: .wouldBlock, stage: "waiting for the microphone", onCapture: true)
                case let .failure(code):
                    if let failure = recover(code, stage: "waiting for the microphone") { return failure.onCaptureSide() }
                    continue
                }
            case .success:
                break
            }
            let frameCount = min(periodFrameCount, frameLimit - consumed)
            if let failure = readCaptured(frameCount) {
                if failure.code == .xrun { continue }  // restarted; read again
                return failure
            }
            captureConversion.convertToFloat(captureBuffer, count: frameCount * captureChannelCount, into: inputBuffer)
            let recorded = min(frameCount * captureChannelCount, captureRecordingCapacity - captureRecordingCount)
            (captureRecording + captureRecordingCount).update(from: inputBuffer, count: recorded)
            captureRecordingCount += recorded
            // Drift: one captured frame dropped or repeated, at most once per window.
            var input = UnsafePointer(inputBuffer)
            var inputFrameCount = frameCount
            if pendingCorrection < 0, frameCount > 1 {
                input += captureChannelCount
                inputFrameCount -= 1
                pendingCorrection += 1
                publishedDroppedInputFrames.add(1, ordering: .relaxed)
            } else if pendingCorrection > 0 {
                (inputBuffer + frameCount * captureChannelCount).update(from: inputBuffer + (frameCount - 1) * captureChannelCount, count: captureChannelCount)
                inputFrameCount += 1
                pendingCorrection -= 1
                publishedRepeatedInputFrames.add(1, ordering: .relaxed)
            }
            let renderStart = timestamp()
            renderer.render(input: input, inputChannelCount: captureChannelCount, into: renderBuffer, frameCount: inputFrameCount)
            recordTiming(PeriodTiming(wakeup: wakeup, renderStart: renderStart, renderEnd: timestamp()))
            conversion.convert(renderBuffer, count: inputFrameCount * granted.channelCount, into: deviceBuffer)
            if let failure = writeAll(inputFrameCount) { return failure }
            consumed += frameCount
            written += inputFrameCount
            publishedFrameCount.store(written, ordering: .relaxed)
            publishedStreamOffset.add(inputFrameCount - frameCount, ordering: .relaxed)
            pendingCorrection += measureLatency()
        }
        capture.drop()
        return drain()
    }

    /// Reads exactly `frameCount` captured frames into `captureBuffer`, waiting as needed.
    private func readCaptured(_ frameCount: Int) -> Failure? {
        guard let capture else { return nil }
        var offset = 0
        while offset < frameCount {
            switch capture.read(captureBuffer + offset * captureBytesPerFrame, frameCount: frameCount - offset) {
            case let .success(count):
                offset += count
                if count > 0 { lastProgress = MonotonicClock.nanoseconds() }
            case .failure(.wouldBlock):
                switch capture.wait(milliseconds: stallTimeoutMilliseconds) {
                case .success(true) where !stalledWithoutProgress: continue
                case .success: return Failure(code: .wouldBlock, stage: "waiting for the microphone", onCapture: true)
                case let .failure(code):
                    if let failure = recover(code, stage: "reading the microphone") { return failure.onCaptureSide() }
                    if code == .xrun { return Failure(code: .xrun, stage: "reading the microphone") }
                }
            case let .failure(code):
                if let failure = recover(code, stage: "reading the microphone") { return failure.onCaptureSide() }
                if code == .xrun { return Failure(code: .xrun, stage: "reading the microphone") }
            }
        }
        return nil
    }

    /// Updates the latency figures and returns the drift correction to make over the next window,
    /// in frames (negative: drop that many captured frames; positive: repeat), one per period.
    ///
    /// Right after a write, the next captured frame was captured `avail` frames ago (capture) and
    /// will play after the `delay` frames now queued (playback): the latency is their sum. Sampled
    /// once per period it jitters by up to a period (the two pointers move at slightly different
    /// moments), so it is averaged over half a second. With one clock the average stays put; with
    /// two it creeps, and once it is more than a period off, it is pulled back to the baseline.
    /// A sudden step (a hiccup in the devices) is accepted as the new baseline instead.
    private func measureLatency() -> Int {
        guard let capture, case let .success(queued) = pcm.delay(),
              case let .success(waiting) = capture.availableFrameCount() else { return 0 }
        latencySum += Double(queued + waiting)
        driftSamples += 1
        let windowPeriods = max(16, granted.sampleRate / 2 / granted.periodFrameCount)
        guard driftSamples >= windowPeriods else { return 0 }
        let average = latencySum / Double(driftSamples)
        latencySum = 0
        driftSamples = 0
        // The first window includes the start-up, when the devices settle: neither a figure to
        // report nor a baseline comes from it.
        warmUpWindows += 1
        guard warmUpWindows > 1 else { return 0 }
        publishedLatencyFrames.store(Int(average.rounded()), ordering: .relaxed)
        defer { previousWindowLatency = average }
        guard let baseline = driftBaseline, let previous = previousWindowLatency else {
            driftBaseline = average
            return 0
        }
        // Clock drift is a slow ramp; a step of half a period or more between two windows is a
        // device or server hiccup that moved where the frames sit. Take the new level as it is:
        // dropping frames to undo it would only eat the playback queue's safety margin.
        if abs(average - previous) >= Double(granted.periodFrameCount) / 2 {
            driftBaseline = average
            return 0
        }
        let deviation = average - baseline
        let slack = Double(granted.periodFrameCount)
        guard abs(deviation) > slack else { return 0 }
        // Latency too high: the playback clock is slower; drop frames (and the reverse), at most
        // one per period of the coming window.
        let frames = min(Int(abs(deviation).rounded()), windowPeriods)
        return deviation > 0 ? -frames : frames
    }

    /// Lets the queued frames play out, bounded by the buffer time plus the stall timeout so a
    /// device that dies now cannot hang us.
    private func drain() -> Failure? {
        let error = pcm.beginDrain()
        if let error, error != .wouldBlock {
            // An underrun at the very end means everything was played; anything else is real.
            return error == .xrun ? nil : Failure(code: error, stage: "draining")
        }
        let deadline = MonotonicClock.seconds()
            + (granted.milliseconds(granted.bufferFrameCount) + Double(stallTimeoutMilliseconds)) / 1_000
        while pcm.state() == SND_PCM_STATE_DRAINING {
            if stopRequested.load(ordering: .relaxed) { break }
            if MonotonicClock.seconds() > deadline { return Failure(code: .wouldBlock, stage: "draining") }
            // A draining PCM may report ready at once; sleep a little so this is not a busy loop.
            _ = pcm.wait(milliseconds: 5)
            usleep(500)
        }
        pcm.drop()
        return nil
    }
}
