import Render
import Synchronization

/// What every device stream shares, whatever its backend: the callback that turns a period of
/// captured frames into a period of output through the renderer, the frame limit and the stop
/// request, the counters the control thread reads, and the measurement records.
///
/// Guarantees:
/// - `process(output:input:frameCount:wakeup:)` is the shape of miniaudio's data callback: one call
///   a period, output and input interleaved, the same frame count for both. A backend (ALSA, JACK,
///   null) owns the device and its thread or callback and calls it; it knows nothing of rendering.
/// - The audio-thread members never allocate, lock, wait or fault a page in: the build proves the
///   first two (`@_noAllocation`, `@_noLocks`), and every buffer they write is written at init.
/// - What a period outputs is the renderer's, frame for frame: the same song renders the same
///   frames through every backend, and offline.
/// - The frame limit is exact: a stream started with a limit of N frames renders N frames (less
///   only when stopped), and silence after them.
///
/// - Thread: any. Each member says whose it is: `init` and `start` are the control thread's, the
///   period's work the audio thread's (one at a time: the device thread, or the server's process
///   callback).
public final class StreamCore: @unchecked Sendable {
    /// What `process` did with a period.
    public enum Progress: Sendable, Equatable {
        /// Rendered the whole period; more is due.
        case playing
        /// Rendered the last frames of the frame limit (the rest of the period, if any, silence).
        case limitReached
        /// A stop was requested: the period is silence.
        case stopRequested
    }

    public let renderer: Renderer
    /// The same renderer, for the audio thread: a guaranteed reference costs no reference counting.
    private let rendererReference: Unmanaged<Renderer>
    /// Output channels, interleaved: the renderer's.
    public let channelCount: Int
    /// Channels of the input `process` takes; 0 for a stream with no capture.
    public let inputChannelCount: Int
    /// Periods whose timing `process` records (`periodTimings`).
    public let timingCapacity: Int
    private let timings: UnsafeMutablePointer<PeriodTiming>
    private var timingCount = 0
    private let captureRecordingCapacity: Int  // samples
    private let captureRecording: UnsafeMutablePointer<Float>
    private var captureRecordingCount = 0  // samples

    /// Frames the stream plays before it finishes; `Int.max` plays until stopped. Set by `start`,
    /// before any audio thread runs.
    /// - Thread: any. Read-only once started.
    public private(set) var frameLimit = Int.max
    /// Frames counted against the limit: input frames consumed (a duplex stream that drops or
    /// repeats a captured frame renders one more or less than it consumes), else frames rendered.
    private var framesCounted = 0
    private let stopFlag = Atomic<Bool>(false)
    private let publishedFrameCount = Atomic<Int>(0)
    private let publishedXrunCount = Atomic<Int>(0)
    private let publishedResamplingDeviation = Atomic<UInt64>(Double(0).bitPattern)
    private let publishedLatencyFrames = Atomic<Int>(-1)
    private let publishedStreamOffset = Atomic<Int>(-1)
    private let recordsReadable = Atomic<Bool>(false)

    /// - Parameters:
    ///   - inputChannelCount: the channels of the captured frames `process` gets; 0 for none.
    ///   - timingCapacity: periods whose timing to record; 0 records nothing (and reads no clock).
    ///   - captureRecordingFrameCount: captured frames to keep, as float, for reading afterwards.
    /// - Thread: control. Not real-time safe: allocates.
    public init(renderer: Renderer, inputChannelCount: Int, timingCapacity: Int = 0, captureRecordingFrameCount: Int = 0) {
        self.renderer = renderer
        rendererReference = Unmanaged.passUnretained(renderer)
        channelCount = renderer.configuration.channelCount
        maxFrameCount = renderer.configuration.maxFrameCount
        self.inputChannelCount = max(0, inputChannelCount)
        self.timingCapacity = max(0, timingCapacity)
        timings = .allocate(capacity: max(1, self.timingCapacity))
        captureRecordingCapacity = max(0, captureRecordingFrameCount) * self.inputChannelCount
        captureRecording = .allocate(capacity: max(1, captureRecordingCapacity))
        // Written now, so that no page of either record is first touched on the audio thread.
        UnsafeMutableRawPointer(timings).initializeMemory(as: UInt8.self, repeating: 0,
                                                          count: max(1, self.timingCapacity) * MemoryLayout<PeriodTiming>.stride)
        captureRecording.initialize(repeating: 0, count: max(1, captureRecordingCapacity))
    }

    deinit {
        timings.deallocate()
        captureRecording.deallocate()
    }

    /// The longest period `process` takes: the renderer's block.
    public let maxFrameCount: Int

    /// Sets the frame limit (nil: none). Called once, before the backend starts calling `process`.
    /// - Thread: control.
    public func start(frameLimit: Int?) {
        self.frameLimit = max(0, frameLimit ?? .max)
    }

    // MARK: Control

    /// Asks the audio thread to stop: from its next period on, `process` outputs silence.
    /// - Thread: any.
    public func requestStop() { stopFlag.store(true, ordering: .relaxed) }

    /// - Thread: any.
    public var isStopRequested: Bool {
        @_noAllocation @_noLocks get { stopFlag.load(ordering: .relaxed) }
    }

    /// Frames rendered and handed to the device so far.
    /// - Thread: any.
    public var framesWritten: Int { publishedFrameCount.load(ordering: .relaxed) }
    /// Xruns so far (underruns or overruns the backend recovered from).
    /// - Thread: any.
    public var xrunCount: Int {
        @_noAllocation @_noLocks get { publishedXrunCount.load(ordering: .relaxed) }
    }
    /// How far from 1 the capture resampler's ratio is, in parts per million (a duplex stream on
    /// two clocks; 0 on one): positive, the capture clock is the faster and the stream writes
    /// that much less than it captures.
    /// - Thread: any.
    public var resamplingPartsPerMillion: Double { Double(bitPattern: publishedResamplingDeviation.load(ordering: .relaxed)) }
    /// The microphone-to-speaker latency in frames, as the backend measured or was told it; nil
    /// until known.
    /// - Thread: any.
    public var latencyFrameCount: Int? {
        let frames = publishedLatencyFrames.load(ordering: .relaxed)
        return frames < 0 ? nil : frames
    }
    /// Of that, the frames the stream itself buffers (ahead of its input); nil until known.
    /// - Thread: any.
    public var streamOffsetFrameCount: Int? {
        let frames = publishedStreamOffset.load(ordering: .relaxed)
        return frames < 0 ? nil : frames
    }

    /// Marks the records readable: the backend calls it once its audio thread will not call
    /// `process` again (the device thread ended, the client was deactivated).
    /// - Thread: any. The control thread, or the audio thread as its last act.
    public func closeRecords() { recordsReadable.store(true, ordering: .releasing) }

    /// The timing of the first `timingCapacity` periods, in order; empty until `closeRecords`.
    /// - Thread: control.
    public var periodTimings: [PeriodTiming] {
        guard recordsReadable.load(ordering: .acquiring) else { return [] }
        return Array(UnsafeBufferPointer(start: timings, count: timingCount))
    }

    /// The first captured frames, as float, interleaved with `inputChannelCount` channels, in the
    /// order `process` took them; empty until `closeRecords`.
    /// - Thread: control.
    public var capturedFrames: [Float] {
        guard recordsReadable.load(ordering: .acquiring) else { return [] }
        return Array(UnsafeBufferPointer(start: captureRecording, count: captureRecordingCount))
    }

    // MARK: Audio thread

    /// One period: `frameCount` frames of `input` (interleaved, `inputChannelCount` channels; nil
    /// for none) through the renderer into `output` (interleaved, `channelCount` channels). Past
    /// the frame limit, or once a stop is requested, the output is silence.
    /// - Parameter wakeup: when the period's work could begin (`timestamp()`), for the timing record.
    /// - Thread: audio.
    @_noAllocation @_noLocks
    public func process(output: UnsafeMutablePointer<Float>, input: UnsafePointer<Float>?, frameCount: Int,
                        wakeup: UInt64) -> Progress {
        if isStopRequested {
            output.update(repeating: 0, count: frameCount * channelCount)
            return .stopRequested
        }
        let due = framesDue(frameCount)
        var done = 0
        while done < due {
            let count = min(maxFrameCount, due - done)
            var chunkInput: UnsafePointer<Float>?
            if let input { chunkInput = input + done * inputChannelCount }
            render(output: output + done * channelCount, input: chunkInput, frameCount: count, wakeup: wakeup)
            done += count
        }
        (output + due * channelCount).update(repeating: 0, count: (frameCount - due) * channelCount)
        count(consumed: due)
        return framesCounted >= frameLimit ? .limitReached : .playing
    }

    /// How many of the next `frameCount` frames are before the frame limit.
    /// - Thread: audio.
    @_noAllocation @_noLocks
    public func framesDue(_ frameCount: Int) -> Int {
        max(0, min(frameCount, frameLimit - framesCounted))
    }

    /// True once the frames counted have reached the limit.
    /// - Thread: audio.
    public var hasReachedLimit: Bool {
        @_noAllocation @_noLocks get { framesCounted >= frameLimit }
    }

    /// Renders `frameCount` frames (at most `maxFrameCount`), recording the period's timing and
    /// the captured frames, and counts them as written. `input` holds `frameCount` frames. A
    /// backend that corrects drift renders one frame more or less than it consumed, and says what
    /// it consumed with `count(consumed:)`; `process` does both for the rest.
    /// - Thread: audio.
    @_noAllocation @_noLocks
    public func render(output: UnsafeMutablePointer<Float>, input: UnsafePointer<Float>?, frameCount: Int, wakeup: UInt64) {
        if let input, inputChannelCount > 0 {
            let recorded = min(frameCount * inputChannelCount, captureRecordingCapacity - captureRecordingCount)
            for index in 0..<recorded { captureRecording[captureRecordingCount + index] = input[index] }
            captureRecordingCount += recorded
        }
        let renderStart = timestamp()
        let inputChannels = input == nil ? 0 : inputChannelCount
        rendererReference._withUnsafeGuaranteedRef {
            $0.render(input: input, inputChannelCount: inputChannels, into: output, frameCount: frameCount)
        }
        if timingCount < timingCapacity {
            timings[timingCount] = PeriodTiming(wakeup: wakeup, renderStart: renderStart, renderEnd: timestamp())
            timingCount += 1
        }
        publishedFrameCount.add(frameCount, ordering: .relaxed)
    }

    /// Counts frames against the frame limit.
    /// - Thread: audio.
    @_noAllocation @_noLocks
    public func count(consumed frameCount: Int) { framesCounted += frameCount }

    /// Counts an xrun and tells the control thread's event stream when it happened.
    /// - Thread: audio.
    @_noAllocation @_noLocks
    public func countXrun() {
        publishedXrunCount.add(1, ordering: .relaxed)
        reportXrun()
    }

    /// Sends the renderer's event stream an xrun at the current frame (the counter is the caller's).
    /// - Thread: audio.
    @_noAllocation @_noLocks
    public func reportXrun() {
        rendererReference._withUnsafeGuaranteedRef { $0.report(.xrun(frameTime: $0.renderedFrameTime)) }
    }

    /// Limits the voices notes may start on (`Renderer.setVoiceLimit`): a plug-in's polyphony.
    /// - Thread: audio.
    @_noAllocation @_noLocks
    public func setVoiceLimit(_ count: Int) {
        rendererReference._withUnsafeGuaranteedRef { $0.setVoiceLimit(count) }
    }

    /// Hands the renderer a MIDI message that arrived on the audio thread, `frameOffset` frames
    /// into the next period (`Renderer.receive`).
    /// - Thread: audio.
    @_noAllocation @_noLocks
    public func receive(_ message: MIDIMessage, atFrameOffset frameOffset: Int) {
        rendererReference._withUnsafeGuaranteedRef { _ = $0.receive(message, atFrameOffset: frameOffset) }
    }

    /// Counts an xrun the server saw outside the audio thread (JACK's xrun callback): the counter
    /// only, since the event stream is the audio thread's to write (`JACKCycle` reports it there).
    /// - Thread: any.
    public func countXrunFromServer() { publishedXrunCount.add(1, ordering: .relaxed) }

    /// Publishes the capture resampler's ratio, as parts per million away from 1.
    /// - Thread: audio.
    @_noAllocation @_noLocks
    public func publishResampling(partsPerMillion: Double) {
        publishedResamplingDeviation.store(partsPerMillion.bitPattern, ordering: .relaxed)
    }

    /// Publishes the measured (or reported) latency, and the part the stream buffers.
    /// - Thread: any.
    public func publishLatency(_ frameCount: Int) { publishedLatencyFrames.store(frameCount, ordering: .relaxed) }
    /// - Thread: any.
    public func publishStreamOffset(_ frameCount: Int) { publishedStreamOffset.store(frameCount, ordering: .relaxed) }
    /// - Thread: any.
    public func moveStreamOffset(by frameCount: Int) { publishedStreamOffset.add(frameCount, ordering: .relaxed) }

    /// Now on `MonotonicClock`, when timing is recorded; 0 otherwise (a stream that records
    /// nothing pays no clock reads).
    /// - Thread: audio.
    @_noAllocation @_noLocks
    public func timestamp() -> UInt64 { timingCapacity > 0 ? MonotonicClock.nanoseconds() : 0 }
}
