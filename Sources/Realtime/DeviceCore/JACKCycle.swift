import CJack
import Render
import Synchronization

/// The work of one JACK process cycle: the server's real-time thread calls `process` once a
/// cycle (through the callback `JACKDevice` registers), and it runs the renderer there, directly.
///
/// Guarantees:
/// - No buffering of its own: the output ports get this cycle's render, made from this cycle's
///   input ports. What latency there is, is the server's (its periods and the ports' latencies).
/// - No allocation, no lock, no wait (the build proves it; the C calls it makes go through
///   `JACKRealtimeCalls`, each one JACK documents as callable in the process callback).
/// - MIDI from the `midi_in` port is sample-accurate: an event at offset k of a cycle takes effect
///   at frame k of that cycle's render. At a buffer size that is a multiple of the renderer's
///   quantum (`RenderQuantum`: 64, 128, 256 ... every JACK size from 64 up), that is its exact
///   frame; at 16 or 32 frames, it is the next quantum's first frame.
/// - After the frame limit, the output is silence for the drain (what the ports' latency still
///   holds: `setDrainFrameCount`), then the stream is finished.
///
/// - Thread: any. `process` is the audio thread's (the server's process thread), as marked; the
///   readers are any thread's.
public final class JACKCycle: @unchecked Sendable {
    public let core: StreamCore
    /// The same core, for the audio thread: a guaranteed reference costs no reference counting.
    private let coreReference: Unmanaged<StreamCore>
    private let channelCount: Int
    /// Silence played after the frame limit before the stream counts as finished: what the
    /// ports' latency still holds once the last frame is out, known once they are connected.
    private let drainFrameCount = Atomic<Int>(0)
    private let outputPorts: UnsafeMutablePointer<OpaquePointer>
    private let inputPorts: UnsafeMutablePointer<OpaquePointer>
    private let inputPortCount: Int
    private let midiPort: OpaquePointer?
    private let interleavedOutput: UnsafeMutablePointer<Float>
    private let interleavedInput: UnsafeMutablePointer<Float>
    private var drainFramesLeft: Int?
    private var xrunsReported = 0
    private let finishedFlag = Atomic<Bool>(false)
    private let publishedLastCycle = Atomic<UInt64>(0)
    private let publishedCycleFrameCount = Atomic<Int>(0)

    /// - Parameters:
    ///   - outputPorts: one port per output channel of `core`, in channel order.
    ///   - inputPorts: one port per input channel of `core` (none without capture).
    ///   - midiPort: the MIDI input port, if any.
    /// - Thread: control. Not real-time safe: allocates.
    public init(core: StreamCore, outputPorts: [OpaquePointer], inputPorts: [OpaquePointer], midiPort: OpaquePointer?) {
        precondition(outputPorts.count == core.channelCount && inputPorts.count == core.inputChannelCount)
        self.core = core
        coreReference = Unmanaged.passUnretained(core)
        channelCount = core.channelCount
        self.outputPorts = .allocate(capacity: max(1, outputPorts.count))
        self.outputPorts.initialize(from: outputPorts, count: outputPorts.count)
        self.inputPorts = .allocate(capacity: max(1, inputPorts.count))
        self.inputPorts.initialize(from: inputPorts, count: inputPorts.count)
        inputPortCount = inputPorts.count
        self.midiPort = midiPort
        interleavedOutput = .allocate(capacity: core.maxFrameCount * core.channelCount)
        interleavedOutput.initialize(repeating: 0, count: core.maxFrameCount * core.channelCount)
        interleavedInput = .allocate(capacity: core.maxFrameCount * max(1, inputPorts.count))
        interleavedInput.initialize(repeating: 0, count: core.maxFrameCount * max(1, inputPorts.count))
    }

    deinit {
        outputPorts.deallocate()
        inputPorts.deallocate()
        interleavedOutput.deallocate()
        interleavedInput.deallocate()
    }

    /// Sets the silence played after the frame limit (see `drainFrameCount`).
    /// - Thread: control. Before the limit is reached.
    public func setDrainFrameCount(_ frameCount: Int) { drainFrameCount.store(max(0, frameCount), ordering: .relaxed) }

    /// True once the frame limit has played and drained, or a stop request has been seen.
    /// - Thread: any.
    public var isFinished: Bool { finishedFlag.load(ordering: .acquiring) }
    /// When the last cycle began, on `MonotonicClock` (nanoseconds); 0 before the first.
    /// - Thread: any.
    public var lastCycleNanoseconds: UInt64 { publishedLastCycle.load(ordering: .relaxed) }
    /// The frame count of the last cycle: the server's buffer size, as it is now.
    /// - Thread: any.
    public var cycleFrameCount: Int { publishedCycleFrameCount.load(ordering: .relaxed) }
    /// One cycle of `frameCount` frames. Returns 0, as JACK asks of a process callback that went well.
    /// - Thread: audio. The server's process thread.
    @_noAllocation @_noLocks
    public func process(frameCount: UInt32) -> Int32 {
        let wakeup = MonotonicClock.nanoseconds()
        publishedLastCycle.store(wakeup, ordering: .relaxed)
        let frames = Int(frameCount)
        publishedCycleFrameCount.store(frames, ordering: .relaxed)
        if isFinished {
            silenceOutputs(frameCount: frameCount)
            return 0
        }
        reportServerXruns()
        let limitReached = coreReference._withUnsafeGuaranteedRef { $0.hasReachedLimit }
        let stopRequested = coreReference._withUnsafeGuaranteedRef { $0.isStopRequested }
        if !limitReached, !stopRequested { readMIDI(frameCount: frameCount) }

        var done = 0
        var progress = StreamCore.Progress.playing
        let maxFrameCount = coreReference._withUnsafeGuaranteedRef { $0.maxFrameCount }
        while done < frames {
            let count = min(maxFrameCount, frames - done)
            var input: UnsafePointer<Float>?
            if inputPortCount > 0 {
                interleaveInputs(from: done, frameCount: count, cycleFrameCount: frameCount)
                input = UnsafePointer(interleavedInput)
            }
            let output = interleavedOutput
            progress = coreReference._withUnsafeGuaranteedRef {
                $0.process(output: output, input: input, frameCount: count, wakeup: wakeup)
            }
            deinterleaveOutputs(to: done, frameCount: count, cycleFrameCount: frameCount)
            done += count
        }
        switch progress {
        case .playing: break
        case .stopRequested: finishedFlag.store(true, ordering: .releasing)
        case .limitReached:
            var left = drainFrameCount.load(ordering: .relaxed) - frames
            if let drainFramesLeft { left = drainFramesLeft - frames }
            drainFramesLeft = left
            if left <= 0 { finishedFlag.store(true, ordering: .releasing) }
        }
        return 0
    }

    /// Hands this cycle's MIDI events to the renderer at their frame offsets.
    @_noAllocation @_noLocks
    private func readMIDI(frameCount: UInt32) {
        guard let midiPort, let buffer = JACKRealtimeCalls.buffer(of: midiPort, frameCount: frameCount) else { return }
        let eventCount = JACKRealtimeCalls.midiEventCount(in: buffer)
        var index: UInt32 = 0
        while index < eventCount {
            // What is no message the renderer plays (clock, active sensing, a SysEx it does not
            // know, a malformed event) is passed over.
            if let event = JACKRealtimeCalls.midiEvent(in: buffer, at: index), let bytes = event.buffer,
               let message = MIDIMessage.decoding(UnsafeBufferPointer(start: bytes, count: event.size)) {
                coreReference._withUnsafeGuaranteedRef { $0.receive(message, atFrameOffset: Int(event.time)) }
            }
            index += 1
        }
    }

    /// Sends the renderer's event stream an xrun for each one the server's xrun callback counted.
    @_noAllocation @_noLocks
    private func reportServerXruns() {
        let counted = coreReference._withUnsafeGuaranteedRef { $0.xrunCount }
        while xrunsReported < counted {
            coreReference._withUnsafeGuaranteedRef { $0.reportXrun() }
            xrunsReported += 1
        }
    }

    @_noAllocation @_noLocks
    private func interleaveInputs(from start: Int, frameCount: Int, cycleFrameCount: UInt32) {
        for channel in 0..<inputPortCount {
            guard let raw = JACKRealtimeCalls.buffer(of: inputPorts[channel], frameCount: cycleFrameCount) else { continue }
            copySamples(frameCount, from: UnsafePointer(raw.assumingMemoryBound(to: Float.self) + start), stride: 1,
                      to: interleavedInput + channel, stride: inputPortCount)
        }
    }

    @_noAllocation @_noLocks
    private func deinterleaveOutputs(to start: Int, frameCount: Int, cycleFrameCount: UInt32) {
        for channel in 0..<channelCount {
            guard let raw = JACKRealtimeCalls.buffer(of: outputPorts[channel], frameCount: cycleFrameCount) else { continue }
            copySamples(frameCount, from: UnsafePointer(interleavedOutput + channel), stride: channelCount,
                      to: raw.assumingMemoryBound(to: Float.self) + start, stride: 1)
        }
    }

    @_noAllocation @_noLocks
    private func silenceOutputs(frameCount: UInt32) {
        for channel in 0..<channelCount {
            guard let raw = JACKRealtimeCalls.buffer(of: outputPorts[channel], frameCount: frameCount) else { continue }
            raw.assumingMemoryBound(to: Float.self).update(repeating: 0, count: Int(frameCount))
        }
    }
}

/// The JACK calls the process callback makes, one funnel each. JACK's API documents these as the
/// ones a process callback may call: they read the server's shared memory for this cycle, and
/// neither allocate, lock nor block. The performance checker cannot see into C, so each is vouched
/// for here, and nothing else in the real-time modules calls JACK.
/// - Thread: audio. Inside the process callback only.
enum JACKRealtimeCalls {
    /// `jack_port_get_buffer`: the port's memory for this cycle (float frames, or a MIDI buffer).
    @_noAllocation @_noLocks
    static func buffer(of port: OpaquePointer, frameCount: UInt32) -> UnsafeMutableRawPointer? {
        _unsafePerformance { jack_port_get_buffer(port, frameCount) }
    }

    /// `jack_midi_get_event_count`.
    @_noAllocation @_noLocks
    static func midiEventCount(in buffer: UnsafeMutableRawPointer) -> UInt32 {
        _unsafePerformance { jack_midi_get_event_count(buffer) }
    }

    /// `jack_midi_event_get`: the event's frame offset in the cycle and its bytes (in the buffer).
    @_noAllocation @_noLocks
    static func midiEvent(in buffer: UnsafeMutableRawPointer, at index: UInt32) -> jack_midi_event_t? {
        var event = jack_midi_event_t()
        let result = _unsafePerformance { jack_midi_event_get(&event, buffer, index) }
        return result == 0 ? event : nil
    }
}
