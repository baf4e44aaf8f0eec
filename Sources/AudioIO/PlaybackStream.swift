import CALSA
import Glibc
import Render
import Synchronization

/// Plays a `Renderer` through an ALSA playback device on a dedicated thread.
///
/// The device thread loops wait → render one period → convert → write. It recovers from xruns
/// (`EPIPE` → prepare) and suspends (`ESTRPIPE` → resume), counts every xrun, and stops with a
/// reason instead of spinning or hanging when the device disappears (`ENODEV`, `EBADFD`, `EIO`) or
/// stops taking frames altogether (a dead sound server shows up as a wait that never ends).
///
/// - Thread: control, for every member; the device thread is private.
public final class PlaybackStream: @unchecked Sendable {
    /// Why the device thread ended.
    public enum Outcome: Sendable, Equatable {
        /// Played the requested number of frames and let them drain.
        case finished
        /// `stop()` was called.
        case stopped
        /// The device failed; the stream cannot continue.
        case failed(DeviceError)

        public static func == (lhs: Outcome, rhs: Outcome) -> Bool {
            switch (lhs, rhs) {
            case (.finished, .finished), (.stopped, .stopped): true
            case let (.failed(a), .failed(b)): a.description == b.description
            default: false
            }
        }
    }

    public let device: String
    public let granted: GrantedConfiguration
    /// How long the device may take no frames at all before the stream gives up on it.
    public let stallTimeoutMilliseconds: Int32

    private let pcm: PCM
    private let renderer: Renderer
    private let requestedPriority: Int32
    private let conversion: SampleConversion
    private let renderBuffer: UnsafeMutablePointer<Float>
    private let deviceBuffer: UnsafeMutableRawPointer
    private let bytesPerFrame: Int

    private let stopRequested = Atomic<Bool>(false)
    private let threadDone = Atomic<Bool>(false)
    private let schedulingKnown = Atomic<Bool>(false)
    private let publishedXrunCount = Atomic<Int>(0)
    private let publishedFrameCount = Atomic<Int>(0)
    // Written by the device thread before `threadDone` is stored (release); read after it (acquire).
    private var failureCode: ALSAError?
    private var failureStage: StaticString = ""
    private var scheduling = RealtimeScheduling.notRequested
    private var frameLimit = Int.max
    private var thread: pthread_t?
    private var startTime = 0.0
    private var endTime = 0.0

    /// Opens and configures `device`. Nothing plays until `start`.
    /// - Throws: `DeviceError` with a one-line message naming the device.
    /// - Thread: control. Not real-time safe: allocates.
    public init(device: String, configuration: StreamConfiguration, renderer: Renderer) throws(DeviceError) {
        guard configuration.channelCount == renderer.configuration.channelCount,
              Double(configuration.sampleRate) == renderer.configuration.sampleRate else {
            throw DeviceError(device: device, message: "stream asks for \(configuration.channelCount) ch at \(configuration.sampleRate) Hz but the renderer makes \(renderer.configuration.channelCount) ch at \(Int(renderer.configuration.sampleRate)) Hz")
        }
        self.device = device
        pcm = try PCM.open(device, direction: .playback)
        granted = try pcm.configure(configuration)
        guard granted.periodFrameCount <= renderer.configuration.maxFrameCount else {
            throw DeviceError(device: device, message: "granted a period of \(granted.periodFrameCount) frames, more than the renderer's block limit of \(renderer.configuration.maxFrameCount)")
        }
        self.renderer = renderer
        requestedPriority = configuration.realtimePriority
        conversion = SampleConversion(granted.format)
        bytesPerFrame = granted.format.byteCount * granted.channelCount
        renderBuffer = .allocate(capacity: granted.periodFrameCount * granted.channelCount)
        deviceBuffer = .allocate(byteCount: granted.periodFrameCount * bytesPerFrame, alignment: 16)
        // A healthy device takes a period every period; allow for a scheduler hiccup of many buffers.
        stallTimeoutMilliseconds = Int32(max(250, 8 * granted.milliseconds(granted.bufferFrameCount)))
    }

    deinit {
        stop()
        _ = join()
        renderBuffer.deallocate()
        deviceBuffer.deallocate()
    }

    /// Starts the device thread. With `frameLimit`, it plays that many frames, lets them drain and
    /// ends with `.finished`. Returns once the thread has tried for real-time scheduling.
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
    public var realtimeScheduling: RealtimeScheduling {
        schedulingKnown.load(ordering: .acquiring) ? scheduling : .notRequested
    }

    /// Xruns so far (underruns recovered by re-preparing the device).
    public var xrunCount: Int { publishedXrunCount.load(ordering: .relaxed) }
    /// Frames handed to the device so far.
    public var framesWritten: Int { publishedFrameCount.load(ordering: .relaxed) }
    /// True once the device thread has ended, for any reason.
    public var isDone: Bool { threadDone.load(ordering: .acquiring) }

    /// Wall-clock seconds from `start` to the end of the device thread (or to now, while running).
    public var elapsedSeconds: Double {
        (isDone ? endTime : MonotonicClock.seconds()) - startTime
    }

    /// Asks the device thread to stop after its current period. Does not wait.
    public func stop() { stopRequested.store(true, ordering: .relaxed) }

    /// Waits for the device thread to end and says why it ended.
    @discardableResult
    public func join() -> Outcome {
        if let thread {
            pthread_join(thread, nil)
            self.thread = nil
        }
        return outcome
    }

    /// Why the device thread ended (meaningful once `isDone`).
    public var outcome: Outcome {
        guard isDone else { return .stopped }
        if let failureCode {
            let message: String = switch failureCode {
            case .wouldBlock: "stopped taking audio for \(stallTimeoutMilliseconds) ms (device stalled, or its sound server died)"
            case .noDevice, .badState: "disconnected while \(failureStage) (\(failureCode))"
            default: "failed while \(failureStage): \(failureCode)"
            }
            return .failed(DeviceError(device: device, message: message, code: failureCode))
        }
        return stopRequested.load(ordering: .relaxed) && framesWritten < frameLimit ? .stopped : .finished
    }

    // MARK: Device thread

    private func runDeviceThread() {
        scheduling = .promoteCurrentThread(priority: requestedPriority)
        schedulingKnown.store(true, ordering: .releasing)
        if let failure = playLoop() {
            failureCode = failure.code
            failureStage = failure.stage
            pcm.drop()
        }
        endTime = MonotonicClock.seconds()
        threadDone.store(true, ordering: .releasing)
    }

    private struct Failure {
        let code: ALSAError
        let stage: StaticString
    }

    /// Plays until the frame limit, a stop request or a failure. Returns the failure, if any.
    private func playLoop() -> Failure? {
        let periodFrameCount = granted.periodFrameCount
        var written = 0
        while written < frameLimit {
            if stopRequested.load(ordering: .relaxed) {
                pcm.drop()
                return nil
            }
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
            renderer.render(into: renderBuffer, frameCount: frameCount)
            conversion.convert(renderBuffer, count: frameCount * granted.channelCount, into: deviceBuffer)
            if let failure = writeAll(frameCount) { return failure }
            written += frameCount
            publishedFrameCount.store(written, ordering: .relaxed)
        }
        return drain()
    }

    private func waitForRoom() -> Failure? {
        switch pcm.wait(milliseconds: stallTimeoutMilliseconds) {
        case .success(true): return nil
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
