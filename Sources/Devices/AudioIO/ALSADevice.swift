import CALSA
import DeviceCore
import Glibc
import Render

/// The ALSA backend: a playback PCM, optionally fed by a capture PCM (duplex: the microphone of the
/// effects graph), driven by a device thread of its own that calls the stream core once a period.
///
/// Playback only, the device thread loops wait → render one period → convert → write. Duplex, it
/// loops wait for a captured period → read → convert → render with it as input → write: the
/// capture clock paces everything. Playback is pre-filled with silence (the buffer's whole periods
/// less one), both are started together (linked with `snd_pcm_link` where the devices allow it),
/// and clock drift between two devices is absorbed by resampling the captured signal at a ratio a
/// few parts per million from 1 (`CaptureResampler`), set by `DriftCorrector` to hold the latency:
/// nothing captured is dropped or repeated. The capture device is opened and validated first,
/// so a device with no input fails before anything plays.
///
/// It recovers from xruns (`EPIPE` → prepare; duplex: both sides restart, pre-filled again) and
/// suspends (`ESTRPIPE` → resume), counts every xrun, and stops with a reason instead of spinning
/// or hanging when a device disappears (`ENODEV`, `EBADFD`, `EIO`) or stops moving frames
/// altogether (a dead sound server shows up as a wait that never ends).
///
/// - Thread: control. For every member but the device thread's loops, which are private.
final class ALSADevice: DeviceBackend, @unchecked Sendable {
    let device: String
    let granted: GrantedConfiguration
    let captureDevice: String?
    let grantedCapture: GrantedConfiguration?
    let isLinked: Bool
    /// True when capture and playback run on one clock: linked, or one device opened both ways.
    /// Such a stream cannot drift, and its microphone is not resampled.
    let sharesClock: Bool
    let stallTimeoutMilliseconds: Int32
    let core: StreamCore

    private let pcm: PCM
    private let capture: PCM?
    private let captureConversion: SampleConversion
    private let captureBuffer: UnsafeMutableRawPointer
    /// Captured frames as float, one period.
    private let inputBuffer: UnsafeMutablePointer<Float>
    /// The captured frames resampled: what the renderer takes, a period give or take a few frames.
    private let resampledBuffer: UnsafeMutablePointer<Float>
    private var resampler: CaptureResampler
    private let captureBytesPerFrame: Int
    private let captureChannelCount: Int
    private let requestedPriority: Int32
    private let conversion: SampleConversion
    private let renderBuffer: UnsafeMutablePointer<Float>
    private let deviceBuffer: UnsafeMutableRawPointer
    private let bytesPerFrame: Int

    private let thread = DeviceThread()
    // Written by the device thread before it ends; read once `thread.isDone`.
    private var failureCode: ALSAError?
    private var failureStage: StaticString = ""
    private var failureDevice: String?
    /// When frames last moved (written to playback or read from capture), in nanoseconds on
    /// `MonotonicClock`: a device whose wait keeps answering "ready" while no frames move (a
    /// stream that never starts) must end in the stall failure, not spin forever.
    private var lastProgress: UInt64 = 0
    private var drift: DriftCorrector

    /// Opens and configures `device` (and `captureDevice`, first, for a duplex stream).
    /// - Throws: `DeviceError` with a one-line message naming the device.
    /// - Thread: control. Not real-time safe: allocates.
    init(device: String, configuration: StreamConfiguration, renderer: Renderer, captureDevice: String?) throws(DeviceError) {
        self.device = device
        self.captureDevice = captureDevice
        var capture: PCM?
        var grantedCapture: GrantedConfiguration?
        // The longest period the renderer's blocks hold (with the capture resampler's stretch).
        var longestPeriod = renderer.configuration.maxFrameCount
        while captureDevice != nil && CaptureResampler.maxOutputFrameCount(forInput: longestPeriod) > renderer.configuration.maxFrameCount {
            longestPeriod -= 1
        }
        if let captureDevice {
            let input = try PCM.open(captureDevice, direction: .capture)
            grantedCapture = try input.configure(configuration, longestPeriodFrameCount: longestPeriod)
            capture = input
        }
        let output = try PCM.open(device, direction: .playback)
        pcm = output
        granted = try output.configure(configuration, longestPeriodFrameCount: longestPeriod)
        // Duplex renders a period plus the few frames the capture resampler may stretch it by.
        let longestBlock = capture == nil ? granted.periodFrameCount : CaptureResampler.maxOutputFrameCount(forInput: granted.periodFrameCount)
        guard longestBlock <= renderer.configuration.maxFrameCount else {
            throw DeviceError(device: device, message: "offers no period near the \(configuration.periodFrameCount) frames asked for: it granted \(granted.periodFrameCount), longer than the renderer's \(renderer.configuration.maxFrameCount)-frame blocks (ask for --period \(granted.periodFrameCount))")
        }
        self.capture = capture
        self.grantedCapture = grantedCapture
        isLinked = capture.map { $0.link(to: output) } ?? false
        sharesClock = isLinked || captureDevice == device
        requestedPriority = configuration.realtimePriority
        conversion = SampleConversion(granted.format)
        bytesPerFrame = granted.format.byteCount * granted.channelCount
        renderBuffer = .allocate(capacity: longestBlock * granted.channelCount)
        deviceBuffer = .allocate(byteCount: longestBlock * bytesPerFrame, alignment: 16)
        captureChannelCount = grantedCapture?.channelCount ?? 1
        captureConversion = SampleConversion(grantedCapture?.format ?? .float32)
        captureBytesPerFrame = (grantedCapture?.format.byteCount ?? 4) * captureChannelCount
        captureBuffer = .allocate(byteCount: granted.periodFrameCount * captureBytesPerFrame, alignment: 16)
        inputBuffer = .allocate(capacity: granted.periodFrameCount * captureChannelCount)
        resampledBuffer = .allocate(capacity: longestBlock * captureChannelCount)
        resampler = CaptureResampler(channelCount: captureChannelCount, maxInputFrameCount: granted.periodFrameCount)
        core = StreamCore(renderer: renderer, inputChannelCount: capture == nil ? 0 : captureChannelCount,
                          timingCapacity: configuration.timingCapacity,
                          captureRecordingFrameCount: configuration.captureRecordingFrameCount)
        drift = DriftCorrector(sampleRate: granted.sampleRate, periodFrameCount: granted.periodFrameCount)
        // Every buffer the device thread writes is written once now, so that none of its pages is
        // first touched (faulted in) on that thread.
        renderBuffer.initialize(repeating: 0, count: longestBlock * granted.channelCount)
        deviceBuffer.initializeMemory(as: UInt8.self, repeating: 0, count: longestBlock * bytesPerFrame)
        captureBuffer.initializeMemory(as: UInt8.self, repeating: 0, count: granted.periodFrameCount * captureBytesPerFrame)
        inputBuffer.initialize(repeating: 0, count: granted.periodFrameCount * captureChannelCount)
        resampledBuffer.initialize(repeating: 0, count: longestBlock * captureChannelCount)
        // A healthy device moves a period every period; allow for a scheduler hiccup of many
        // buffers, and no more: a vanished device must be reported within about 100 ms.
        stallTimeoutMilliseconds = Int32(max(80, 8 * granted.milliseconds(granted.bufferFrameCount)))
    }

    deinit {
        core.requestStop()
        join()
        if isLinked { capture?.unlink() }
        renderBuffer.deallocate()
        deviceBuffer.deallocate()
        captureBuffer.deallocate()
        inputBuffer.deallocate()
        resampledBuffer.deallocate()
        resampler.deallocate()
    }

    func start() throws(DeviceError) {
        try thread.start(for: device, priority: requestedPriority) { self.runDeviceThread() }
    }

    var details: [String] { [] }
    var recordedOutput: [Float] { [] }
    var realtimeScheduling: RealtimeScheduling { thread.realtimeScheduling }
    var isDone: Bool { thread.isDone }
    var endSeconds: Double? { thread.endSeconds }
    func join() { thread.join() }

    var failure: DeviceError? {
        guard isDone, let failureCode else { return nil }
        let message: String = switch failureCode {
        case .wouldBlock: "stopped \(failureDevice == nil ? "taking" : "delivering") audio for \(stallTimeoutMilliseconds) ms (device stalled, or its sound server died)"
        case .noDevice, .badState: "disconnected while \(failureStage) (\(failureCode))"
        default: "failed while \(failureStage): \(failureCode)"
        }
        return DeviceError(device: failureDevice ?? device, message: message, code: failureCode)
    }

    // MARK: Device thread

    /// The device thread's whole life (`DeviceThread`, the real-time boundary): from here to its
    /// return, only the stream core and the C calls around it run.
    private func runDeviceThread() {
        if let failure = capture == nil ? playLoop() : duplexLoop() {
            failureCode = failure.code
            failureStage = failure.stage
            if failure.onCapture { failureDevice = captureDevice }
            pcm.drop()
            capture?.drop()
        }
        core.closeRecords()
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
        lastProgress = MonotonicClock.nanoseconds()
        while !core.hasReachedLimit {
            if core.isStopRequested {
                pcm.drop()
                return nil
            }
            let wakeup = core.timestamp()
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
            let frameCount = core.framesDue(periodFrameCount)
            core.render(output: renderBuffer, input: nil, frameCount: frameCount, wakeup: wakeup)
            core.count(consumed: frameCount)
            conversion.convert(renderBuffer, count: frameCount * granted.channelCount, into: deviceBuffer)
            if let failure = writeAll(frameCount) { return failure }
        }
        return drain()
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
        switch ALSARecovery(for: code, duplex: capture != nil) {
        case .restartDuplex:
            core.countXrun()
            return startDuplex()
        case .prepare:
            core.countXrun()
            return pcm.prepare().map { Failure(code: $0, stage: "recovering from an xrun") }
        case .resume:
            var result = pcm.resume()
            var attempts = 0
            while result == .wouldBlock, attempts < ALSARecovery.resumeAttempts {
                usleep(ALSARecovery.resumeWaitMicroseconds)
                attempts += 1
                result = pcm.resume()
            }
            if result == nil { return nil }
            return pcm.prepare().map { Failure(code: $0, stage: "resuming after a suspend") }
        case .retry:
            return nil
        case .fail:
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
        drift.reset()
        resampler.reset()
        core.publishResampling(partsPerMillion: 0)
        // The pre-fill, and the resampler's look-ahead: how far the output runs ahead of the input.
        core.publishStreamOffset(prefill + resamplerDelay)
        lastProgress = MonotonicClock.nanoseconds()
        return nil
    }

    /// Moves audio from capture through the renderer to playback until the frame limit, a stop
    /// request or a failure. Returns the failure, if any.
    private func duplexLoop() -> Failure? {
        guard let capture else { return nil }
        if let failure = startDuplex() { return failure }
        let periodFrameCount = granted.periodFrameCount
        while !core.hasReachedLimit {
            if core.isStopRequested {
                pcm.drop()
                capture.drop()
                return nil
            }
            let wakeup = core.timestamp()
            switch capture.availableFrameCount() {
            case let .failure(code):
                if let failure = recover(code, stage: "checking captured frames") { return failure.onCaptureSide() }
                continue
            case let .success(available) where available < periodFrameCount:
                // After a restart (an xrun) or a wake-up alike, look at the captured frames again.
                if let failure = waitForMicrophone(stage: "waiting for the microphone"), failure.code != .xrun { return failure }
                continue
            case .success:
                break
            }
            let frameCount = core.framesDue(periodFrameCount)
            if let failure = readCaptured(frameCount) {
                if failure.code == .xrun { continue }  // restarted; read again
                return failure
            }
            captureConversion.convertToFloat(captureBuffer, count: frameCount * captureChannelCount, into: inputBuffer)
            // Drift (two clocks): the period resampled at the corrector's ratio, a frame or so more
            // or less. On one clock (linked, or one device) the period passes as it is.
            var outputFrameCount = frameCount
            var input = UnsafePointer(inputBuffer)
            if !sharesClock {
                outputFrameCount = resampler.resample(inputBuffer, inputFrameCount: frameCount, ratio: drift.ratio, into: resampledBuffer)
                input = UnsafePointer(resampledBuffer)
            }
            core.render(output: renderBuffer, input: input, frameCount: outputFrameCount, wakeup: wakeup)
            core.count(consumed: frameCount)
            conversion.convert(renderBuffer, count: outputFrameCount * granted.channelCount, into: deviceBuffer)
            if let failure = writeAll(outputFrameCount) { return failure }
            core.moveStreamOffset(by: outputFrameCount - frameCount)
            measureLatency()
        }
        capture.drop()
        return drain()
    }

    /// Waits for the microphone to have frames. Returns nil to try again; a failure to end with;
    /// or `.xrun` when recovering restarted both sides, so that what was being read is gone.
    private func waitForMicrophone(stage: StaticString) -> Failure? {
        guard let capture else { return nil }
        switch capture.wait(milliseconds: stallTimeoutMilliseconds) {
        case .success(true) where !stalledWithoutProgress: return nil
        case .success: return Failure(code: .wouldBlock, stage: "waiting for the microphone", onCapture: true)
        case let .failure(code):
            if let failure = recover(code, stage: stage) { return failure.onCaptureSide() }
            return code == .xrun ? Failure(code: .xrun, stage: stage) : nil
        }
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
                if let failure = waitForMicrophone(stage: "reading the microphone") { return failure }
            case let .failure(code):
                if let failure = recover(code, stage: "reading the microphone") { return failure.onCaptureSide() }
                if code == .xrun { return Failure(code: .xrun, stage: "reading the microphone") }
            }
        }
        return nil
    }

    /// Measures the microphone-to-speaker latency and hands it to the drift corrector, which sets
    /// the resampling ratio for the periods to come. Right after a write, the next captured frame
    /// was captured `avail` frames ago (capture) and will play after the `delay` frames now queued
    /// (playback): the latency is their sum, with the resampler's look-ahead.
    private func measureLatency() {
        guard let capture, case let .success(queued) = pcm.delay(),
              case let .success(waiting) = capture.availableFrameCount() else { return }
        drift.add(latencyFrameCount: queued + waiting)
        if let average = drift.averageLatency {
            core.publishLatency(Int(average.rounded()) + resamplerDelay)
        }
        core.publishResampling(partsPerMillion: drift.ratioPartsPerMillion)
    }

    /// The frames the capture resampler holds back (its look-ahead); none on one clock, where the
    /// microphone is not resampled.
    private var resamplerDelay: Int { sharesClock ? 0 : CaptureResampler.delayFrameCount }

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
            if core.isStopRequested { break }
            if MonotonicClock.seconds() > deadline { return Failure(code: .wouldBlock, stage: "draining") }
            // A draining PCM may report ready at once; sleep a little so this is not a busy loop.
            _ = pcm.wait(milliseconds: 5)
            usleep(500)
        }
        pcm.drop()
        return nil
    }
}
