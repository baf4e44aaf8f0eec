import DSP
import Lockfree
import Synchronization

/// Everything that runs on the audio thread, and all the state it owns.
///
/// The control thread builds a `Renderer` and hands it to exactly one audio thread (a device
/// stream or an offline render); from then on only that thread calls `render` or `report`. The
/// control thread reaches it only through the command ring, the parameter cells and the published
/// counters below.
public final class Renderer: @unchecked Sendable {
    public let configuration: RenderConfiguration
    /// Master volume, 0...1, read once per block and smoothed per frame.
    public let masterVolume: ParameterCell
    let masterVolumeReader: ParameterReader

    var commands: SPSCRing<RenderCommand>.Consumer
    var events: SPSCRing<RenderEvent>.Producer
    let tones: ToneBank
    var masterGain: SmoothedValue
    /// Frames rendered so far: the time of the next frame out. Audio thread only.
    var frameTime: FrameTime = 0

    let publishedFrameTime = Atomic<UInt64>(0)
    let publishedDroppedEventCount = Atomic<Int>(0)

    /// - Thread: control. Not real-time safe: allocates.
    public init(configuration: RenderConfiguration,
                commands: consuming SPSCRing<RenderCommand>.Consumer,
                events: consuming SPSCRing<RenderEvent>.Producer,
                masterVolume: ParameterCell) {
        precondition(configuration.sampleRate > 0 && configuration.channelCount > 0 && configuration.maxFrameCount > 0)
        self.configuration = configuration
        self.commands = commands
        self.events = events
        self.masterVolume = masterVolume
        masterVolumeReader = masterVolume.reader
        tones = ToneBank(sampleRate: configuration.sampleRate)
        masterGain = SmoothedValue(masterVolume.value,
                                   rampFrameCount: Int(configuration.sampleRate * ToneBank.fadeSeconds))
    }

    deinit { tones.deallocate() }

    /// Frames rendered so far, as last published by the audio thread at the end of a block.
    /// - Thread: any.
    public var renderedFrameTime: FrameTime { publishedFrameTime.load(ordering: .acquiring) }

    /// Events the audio thread could not send because the return ring was full.
    /// - Thread: any.
    public var droppedEventCount: Int { publishedDroppedEventCount.load(ordering: .relaxed) }

    /// Renders `frameCount` interleaved frames into `output`, applying each queued command at its
    /// frame. `frameCount` may be any value up to `configuration.maxFrameCount`.
    /// - Thread: audio.
    @_noAllocation @_noLocks
    public func render(into output: UnsafeMutablePointer<Float>, frameCount: Int) {
        let channelCount = configuration.channelCount
        output.update(repeating: 0, count: frameCount * channelCount)
        masterGain.move(to: masterVolumeReader.value)

        var offset = 0
        while offset < frameCount {
            let segmentEnd = applyCommands(dueBefore: frameCount, offset: offset)
            let segment = output + offset * channelCount
            tones.render(adding: segment, frameCount: segmentEnd - offset, channelCount: channelCount)
            offset = segmentEnd
        }
        applyMasterGain(output, frameCount: frameCount, channelCount: channelCount)

        frameTime += FrameTime(frameCount)
        publishedFrameTime.store(frameTime, ordering: .releasing)
    }

    /// Sends an event to the control thread; when the return ring is full it is counted as dropped.
    /// - Thread: audio.
    @_noAllocation @_noLocks
    public func report(_ event: RenderEvent) {
        if !events.tryPush(event) {
            publishedDroppedEventCount.add(1, ordering: .relaxed)
        }
    }

    /// Applies every command due at `offset` and returns where the block must next be split: the
    /// offset of the first command still in the future, or `frameCount`.
    @_noAllocation @_noLocks
    func applyCommands(dueBefore frameCount: Int, offset: Int) -> Int {
        let now = frameTime + FrameTime(offset)
        while let command = commands.peek() {
            if command.frameTime > now {
                let distance = command.frameTime - frameTime
                return distance < FrameTime(frameCount) ? Int(distance) : frameCount
            }
            apply(command.action)
            _ = commands.tryPop()
        }
        return frameCount
    }

    @_noAllocation @_noLocks
    func apply(_ action: RenderCommand.Action) {
        switch action {
        case let .toneOn(slot, frequency, amplitude):
            tones.start(slot: slot, frequency: frequency, amplitude: amplitude)
        case let .toneOff(slot):
            tones.stop(slot: slot)
        case .allSoundOff:
            tones.stopAll()
        }
    }

    @_noAllocation @_noLocks
    func applyMasterGain(_ output: UnsafeMutablePointer<Float>, frameCount: Int, channelCount: Int) {
        var sampleIndex = 0
        for _ in 0..<frameCount {
            let gain = masterGain.next()
            for channel in 0..<channelCount { output[sampleIndex + channel] *= gain }
            sampleIndex += channelCount
        }
    }
}
