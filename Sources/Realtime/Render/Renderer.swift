import CStackPrefault
import DSP
import FeedbackSuppression
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
    /// The effects graph's knobs (EQ, boost, reverb, master volume), read once per block.
    public let effects: EffectsControls
    /// Master volume, 0...1, read once per block and smoothed per frame.
    /// - Thread: any.
    public var masterVolume: ParameterCell { effects.volume }

    var commands: SPSCRing<RenderCommand>.Consumer
    /// Commands taken out of the ring and waiting for their frame, in the order they take effect;
    /// as large as the ring.
    var pending: PendingCommands
    var events: SPSCRing<RenderEvent>.Producer
    let tones: ToneBank
    var sampler: Sampler
    var drums: DrumPlayer
    var chain: EffectsChain
    /// The reverb and chorus buses the sampler's voices send to.
    var sends: EffectsSends
    /// Each stage's time, when the configuration profiles them (`RenderConfiguration.profilesStages`).
    let stageClock: RenderStageClock
    /// The stereo mix bus, `maxFrameCount` frames each; interleaved into the output at the end.
    let mixLeft: UnsafeMutablePointer<Float>
    let mixRight: UnsafeMutablePointer<Float>
    /// The microphone's bus, `maxFrameCount` frames each: its input chain runs here before it
    /// joins the mix bus.
    let microphoneLeft: UnsafeMutablePointer<Float>
    let microphoneRight: UnsafeMutablePointer<Float>
    /// The instruments' block in mono, `maxFrameCount` frames: the echo canceller's reference.
    let echoReference: UnsafeMutablePointer<Float>
    /// The processed microphone, interleaved for `microphoneTap`, `maxFrameCount` frames (empty
    /// when nobody records it).
    let microphoneFrames: UnsafeMutablePointer<Float>
    /// The instruments mixed with their effects, whole quanta (`RenderQuantum`) on a ring of
    /// `instrumentFrameCount` frames: frame `t` is at `t % instrumentFrameCount`, so a quantum never
    /// wraps. It holds the frames from `frameTime` up to `mixedUntil`, which blocks take in turn.
    let instrumentLeft: UnsafeMutablePointer<Float>
    let instrumentRight: UnsafeMutablePointer<Float>
    let instrumentFrameCount: Int
    /// Frames delivered so far: the time of the next frame out. Audio thread only.
    var frameTime: FrameTime = 0
    /// The end of the quanta mixed so far, their effects included: the ring holds them up to here.
    /// Audio thread only.
    var mixedUntil: FrameTime = 0
    /// The end of the voices' last segment: where the next begins, and the frame commands are
    /// applied at. The voices run ahead of the mixing by the segments waiting in `unmixed`.
    /// Audio thread only.
    var voicesUntil: FrameTime = 0
    /// Segments whose voices are rendered and whose mixes wait to be added up, oldest first, at most
    /// `VoiceWorkItems.mixSetCount - 1` of them (the next segment renders into the set none of
    /// them holds).
    let unmixed: UnsafeMutablePointer<UnmixedSegment>
    var unmixedFirst = 0
    var unmixedCount = 0
    /// The segment begun last (`beginSegment`): whether the voice workers share it, and its frames.
    var begunSegmentIsShared = false
    var begunSegmentFrameCount = 0
    /// True while a segment begun past the block's end is with the voice workers: they render it
    /// while the block is delivered, and the next call ends it (`advanceInstruments`).
    var segmentInFlight = false
    /// Every command for a frame before this is in the ring (`declareCommandsQueued(before:)`).
    let queuedCommandsEnd = Atomic<UInt64>(0)
    /// Whether a voice sounded at the start of a segment of the quantum being mixed.
    var quantumSounded = false
    /// The end of the last quantum in which a sampler or drum voice played. Audio thread only.
    var soundingUntil: FrameTime = 0
    /// A segment of the voices, rendered, not yet mixed: where it starts, and its mixes (which say
    /// how long it is).
    struct UnmixedSegment {
        var start: FrameTime
        var mixes: VoiceSegmentMixes

        /// Real-time checked here: a debug build checks a file at a time, and the segment
        /// pipeline (RendererSegments.swift) makes segments.
        @_noAllocation @_noLocks
        init(start: FrameTime, mixes: VoiceSegmentMixes) {
            self.start = start
            self.mixes = mixes
        }
    }
    /// The MIDI instruments' own bus (sampler and drums), a quantum each: used while the song's
    /// volume is not exactly 1, to scale them and nothing else.
    let songLeft: UnsafeMutablePointer<Float>
    let songRight: UnsafeMutablePointer<Float>
    /// The song's volume: the song gain times its master volume (MIDI Master Volume SysEx), a
    /// linear gain ramped per frame, so it changes on its exact frame whatever the block size. At
    /// exactly 1 the instruments mix straight into the mix bus, untouched.
    var songVolume: SmoothedValue
    /// `configuration.songGainDecibels` as a linear gain: what `songVolume` rests at.
    let songGain: Float
    /// Where the final output is copied for recording (a disabled tap when nobody records).
    let outputTap: OutputTap
    /// The same tap, for the audio thread: a guaranteed reference costs no reference counting.
    let outputTapReference: Unmanaged<OutputTap>
    /// Where the processed microphone is copied, alone, before it joins the instruments (the
    /// karaoke stem; a disabled tap when nobody records it), and its guaranteed reference.
    let microphoneTap: OutputTap
    let microphoneTapReference: Unmanaged<OutputTap>
    let recordsMicrophone: Bool
    let publishedFrameTime = Atomic<UInt64>(0)
    let publishedLastSoundingFrame = Atomic<UInt64>(0)
    let publishedDroppedEventCount = Atomic<Int>(0)
    let publishedDroppedInputMessages = Atomic<Int>(0)
    let publishedActiveVoices = Atomic<Int>(0)
    let publishedPeakVoices = Atomic<Int>(0)
    let publishedStolenVoices = Atomic<Int>(0)
    let publishedHardCuts = Atomic<Int>(0)
    let publishedNoteOns = Atomic<Int>(0)
    let publishedUnmappedNotes = Atomic<Int>(0)
    let publishedSampleUnderruns = Atomic<Int>(0)
    let publishedDrumHits = Atomic<Int>(0)
    let publishedDrumRecycles = Atomic<Int>(0)
    let publishedDrumChokes = Atomic<Int>(0)
    let publishedUnmappedHits = Atomic<Int>(0)
    let publishedDrumVoices = Atomic<Int>(0)
    let publishedInputPeak = Atomic<UInt32>(0)
    let publishedOutputPeak = Atomic<UInt32>(0)
    let publishedNotchedFrequencies = Atomic<Int>(0)
    let publishedLastNotchedHertz = Atomic<UInt32>(0)
    let publishedFeedbackDucks = Atomic<Int>(0)
    /// The suppressor's notch slots, each its centre's and its depth's bits in one word (a slot
    /// is never read half old, half new); 0 for a free slot.
    let publishedNotches = PublishedNotchCells { _ in Atomic<UInt64>(0) }
    typealias PublishedNotchCells = InlineArray<8, Atomic<UInt64>>
    let publishedLimitedFrames = Atomic<Int>(0)
    /// The hum's fundamental (Float bits, 0 before it is found) and its power (Float bits).
    let publishedHumHertz = Atomic<UInt32>(0)
    let publishedHumPower = Atomic<UInt32>(0)
    /// The echo return loss enhancement in dB (Float bits), NaN's bits before there is one.
    let publishedEchoReturnLoss = Atomic<UInt32>(Float.nan.bitPattern)
    let publishedDeepestLimiterGain = Atomic<UInt32>(Float(1).bitPattern)

    /// - Parameters:
    ///   - outputTap: where every rendered block is copied for recording, if anywhere.
    ///   - microphoneTap: where the processed microphone is copied, alone and in stereo, before it
    ///     joins the instruments, if anywhere.
    /// - Thread: control. Not real-time safe: allocates.
    public init(configuration: RenderConfiguration,
                commands: consuming SPSCRing<RenderCommand>.Consumer,
                events: consuming SPSCRing<RenderEvent>.Producer,
                effects: EffectsControls,
                outputTap: OutputTap? = nil,
                microphoneTap: OutputTap? = nil) {
        precondition(configuration.sampleRate > 0 && configuration.channelCount > 0 && configuration.maxFrameCount > 0)
        precondition(PublishedNotchCells.count == FeedbackSuppressor.maximumNotchCount, "a published cell per notch slot")
        self.configuration = configuration
        self.commands = commands
        pending = PendingCommands(capacity: self.commands.capacity)
        self.events = events
        self.effects = effects
        self.outputTap = outputTap ?? OutputTap(channelCount: configuration.channelCount, capacityFrameCount: 0)
        outputTapReference = Unmanaged.passUnretained(self.outputTap)
        precondition(self.outputTap.channelCount == configuration.channelCount,
                     "the output tap must have the renderer's channel count")
        self.microphoneTap = microphoneTap ?? OutputTap(channelCount: 2, capacityFrameCount: 0)
        microphoneTapReference = Unmanaged.passUnretained(self.microphoneTap)
        recordsMicrophone = self.microphoneTap.isEnabled
        precondition(self.microphoneTap.channelCount == 2, "the microphone tap is stereo")
        tones = ToneBank(sampleRate: configuration.sampleRate)
        stageClock = configuration.profilesStages ? RenderStageClock.counting(songGainDecibels: configuration.songGainDecibels) : RenderStageClock()
        let quantum = RenderQuantum.frameCount
        sampler = Sampler(sampleRate: configuration.sampleRate, voiceCount: configuration.voiceCount,
                          fadeSlotCount: configuration.fadeSlotCount, interpolation: configuration.cubicInterpolation ? .cubic : .linear,
                          kernel: min(configuration.samplerKernel, .fastestSupported),
                          sendsEnabled: configuration.effects, workerCount: configuration.threadCount - 1,
                          stageClock: stageClock)
        voiceThreadCount = (sampler.workers?.workerCount ?? 0) + 1
        workerItemCounter = sampler.workers?.workerItemCount
        workerPriority = sampler.workers?.requestedPriority
        workersPaced = sampler.workers?.paced
        workerBlockFrameCount = sampler.workers?.blockFrameCount
        workerBlockSequence = sampler.workers?.blockSequence
        sampler.minimumNoteFrames = FrameTime((configuration.minimumNoteSeconds * configuration.sampleRate).rounded())
        sampler.basicChannel = configuration.basicChannel
        sends = EffectsSends(sampleRate: configuration.sampleRate, maxFrameCount: quantum)
        // Written now, so that no page of them is first touched (faulted in) on the audio thread.
        songLeft = .allocate(capacity: quantum)
        songLeft.initialize(repeating: 0, count: quantum)
        songRight = .allocate(capacity: quantum)
        songRight.initialize(repeating: 0, count: quantum)
        // Room for a block, the quantum each end of it may reach into, and a segment the voices
        // rendered past the block's end (`advanceInstruments`), a power of two.
        var ringFrames = 2 * quantum
        let segmentFrames = VoiceWorkItems.maximumQuantumCount * quantum
        while ringFrames < configuration.maxFrameCount + 2 * quantum + segmentFrames { ringFrames *= 2 }
        instrumentFrameCount = ringFrames
        instrumentLeft = .allocate(capacity: ringFrames)
        instrumentLeft.initialize(repeating: 0, count: ringFrames)
        instrumentRight = .allocate(capacity: ringFrames)
        instrumentRight.initialize(repeating: 0, count: ringFrames)
        unmixed = .allocate(capacity: VoiceWorkItems.mixSetCount)
        unmixed.initialize(repeating: UnmixedSegment(start: 0, mixes: VoiceSegmentMixes()), count: VoiceWorkItems.mixSetCount)
        songGain = decibelsToAmplitude(configuration.songGainDecibels)
        songVolume = SmoothedValue(songGain, rampFrameCount: Int(ClickFreeFade.seconds * configuration.sampleRate))
        drums = DrumPlayer(sampleRate: configuration.sampleRate)
        mixLeft = .allocate(capacity: configuration.maxFrameCount)
        mixLeft.initialize(repeating: 0, count: configuration.maxFrameCount)
        mixRight = .allocate(capacity: configuration.maxFrameCount)
        mixRight.initialize(repeating: 0, count: configuration.maxFrameCount)
        microphoneLeft = .allocate(capacity: configuration.maxFrameCount)
        microphoneLeft.initialize(repeating: 0, count: configuration.maxFrameCount)
        microphoneRight = .allocate(capacity: configuration.maxFrameCount)
        microphoneRight.initialize(repeating: 0, count: configuration.maxFrameCount)
        echoReference = .allocate(capacity: configuration.maxFrameCount)
        echoReference.initialize(repeating: 0, count: configuration.maxFrameCount)
        let microphoneSampleCount = recordsMicrophone ? 2 * configuration.maxFrameCount : 0
        microphoneFrames = .allocate(capacity: microphoneSampleCount)
        microphoneFrames.initialize(repeating: 0, count: microphoneSampleCount)
        chain = EffectsChain(sampleRate: configuration.sampleRate, maxFrameCount: configuration.maxFrameCount,
                             controls: effects, limiterEnabled: configuration.outputLimiter,
                             feedbackSuppressionEnabled: configuration.feedbackSuppression,
                             voiceProcessing: configuration.voiceProcessing, echoCancellation: configuration.echoCancellation,
                             echoTailSeconds: configuration.echoTailSeconds)
    }

    deinit {
        // Banks and kits sent but never installed go back to whoever else holds them.
        while let command = commands.tryPop() { Self.releaseObject(of: command) }
        pending.deallocate(discarding: Self.releaseObject(of:))
        tones.deallocate()
        sampler.deallocate { $0.release() }
        drums.deallocate { $0.release() }
        mixLeft.deallocate()
        mixRight.deallocate()
        microphoneLeft.deallocate()
        microphoneRight.deallocate()
        echoReference.deallocate()
        microphoneFrames.deallocate()
        songLeft.deallocate()
        songRight.deallocate()
        instrumentLeft.deallocate()
        instrumentRight.deallocate()
        unmixed.deallocate()
        chain.deallocate()
        sends.deallocate()
        stageClock.deallocate()
    }

    /// Frames rendered so far, as last published by the audio thread at the end of a block.
    /// - Thread: any.
    public var renderedFrameTime: FrameTime {
        @_noAllocation @_noLocks get { publishedFrameTime.load(ordering: .acquiring) }
    }

    /// The end of the last quantum (`RenderQuantum`) in which a sampler or drum voice played, as
    /// last published: where a render that holds every voice to its end may end. It can be up to a
    /// quantum ahead of `renderedFrameTime`.
    /// - Thread: any.
    public var lastSoundingFrame: FrameTime { publishedLastSoundingFrame.load(ordering: .acquiring) }

    /// Promises that every command for a frame before `frame` is already queued, so the voices may
    /// be rendered past the end of the block asked for, up to there. An offline render that queues
    /// its commands ahead declares them: the voice workers then render the next segment while the
    /// calling thread finishes the block and hands it on, where they would wait. Live playback
    /// declares nothing (its commands come as they are played), and renders as before. The output
    /// is the same either way; a command queued later for an earlier frame than promised takes
    /// effect late, as a late command does (`RenderQuantum`).
    /// - Thread: control.
    public func declareCommandsQueued(before frame: FrameTime) {
        queuedCommandsEnd.store(frame, ordering: .releasing)
    }

    /// Threads that render the sampler's voices: the audio thread and the voice workers started
    /// (`RenderConfiguration.threadCount`, or 1 when the system would not start the workers).
    public let voiceThreadCount: Int
    /// The workers' item counter (nil without workers), read from any thread.
    let workerItemCounter: UnsafeMutablePointer<Atomic<Int>>?
    /// The workers' requested priority (nil without workers), set from any thread.
    let workerPriority: UnsafeMutablePointer<Atomic<Int32>>?
    /// Whether the workers are paced (nil without workers), set from any thread; and the frames of
    /// the last block, which the audio thread stores for them when it changes.
    let workersPaced: UnsafeMutablePointer<Atomic<Bool>>?
    let workerBlockFrameCount: UnsafeMutablePointer<Atomic<Int>>?
    let workerBlockSequence: UnsafeMutablePointer<Atomic<Int>>?
    var storedBlockFrameCount = 0
    var blocksBegun = 0

    /// Work items (groups of voices, `VoiceWorkItems`) the voice workers have rendered so far; the
    /// audio thread rendered the rest.
    /// - Thread: any.
    public var voiceItemsRenderedByWorkers: Int { workerItemCounter?.pointee.load(ordering: .relaxed) ?? 0 }

    /// Asks the voice workers to run with SCHED_FIFO at `priority` (0: normal scheduling), as the
    /// device thread that calls `render` does, so the scheduler treats them alike; each applies it
    /// before its next item.
    /// - Thread: any.
    public func setVoiceWorkerPriority(_ priority: Int32) {
        workerPriority?.pointee.store(max(0, priority), ordering: .relaxed)
    }

    /// Lets notes start on `count` of the sampler's voices at most (1 ... `RenderConfiguration.voiceCount`):
    /// a note past the limit steals, as in a full pool. Notes on voices past a lowered limit ring out.
    /// - Thread: audio. Between blocks.
    @_noAllocation @_noLocks
    public func setVoiceLimit(_ count: Int) {
        sampler.pool.setVoiceLimit(count)
    }

    /// Tells the voice workers whether `render` is called once a period of a device's clock
    /// (live), a period being the last block's frames, or back to back (offline, the default).
    /// Paced, between periods each sleeps once, to just before the next period's work, rather than
    /// napping through the period. When a worker wakes never changes the output, and the audio
    /// thread never waits for it: it renders what no worker has claimed.
    /// - Thread: any.
    public func setVoiceWorkersPaced(_ paced: Bool) {
        workersPaced?.pointee.store(paced, ordering: .relaxed)
    }

    /// Renders `frameCount` interleaved frames into `output`, applying each queued command at its
    /// frame. `frameCount` may be any value up to `configuration.maxFrameCount`; the output does not
    /// depend on it (`RenderQuantum`).
    /// - Thread: audio.
    @_noAllocation @_noLocks
    public func render(into output: UnsafeMutablePointer<Float>, frameCount: Int) {
        render(input: nil, inputChannelCount: 0, into: output, frameCount: frameCount)
    }

    /// Renders one block with a microphone: `input` holds `frameCount` interleaved frames of
    /// `inputChannelCount` channels (mono feeds both sides; beyond two, the first two are used),
    /// which go through the input chain (EQ, boost) and join the instruments before the reverb.
    /// - Thread: audio.
    @_noAllocation @_noLocks
    public func render(input: UnsafePointer<Float>?, inputChannelCount: Int,
                       into output: UnsafeMutablePointer<Float>, frameCount: Int) {
        // Every block maps the stack a render may reach (a write per page, no system call), so the
        // thread that renders, whichever it is, never faults a stack page in on a deeper path
        // later: a release trigger's first note-off did (RenderThreadPageFaultTests). The C
        // function writes its own stack frame and nothing else.
        _unsafePerformance { staccato_prefault_stack() }
        chain.updateParameters()
        // What paced workers go by (`setVoiceWorkersPaced`): the period, and that a block began.
        if frameCount != storedBlockFrameCount {
            storedBlockFrameCount = frameCount
            workerBlockFrameCount?.pointee.store(frameCount, ordering: .relaxed)
        }
        blocksBegun &+= 1
        workerBlockSequence?.pointee.store(blocksBegun, ordering: .relaxed)
        let blockEnd = frameTime + FrameTime(frameCount)
        while mixedUntil < blockEnd { advanceInstruments(reaching: blockEnd) }
        let mask = instrumentFrameCount - 1
        let first = Int(frameTime % FrameTime(instrumentFrameCount))
        for frame in 0..<frameCount {
            mixLeft[frame] = instrumentLeft[(first + frame) & mask]
            mixRight[frame] = instrumentRight[(first + frame) & mask]
        }
        frameTime = blockEnd
        let microphoneIsOpen = input != nil && inputChannelCount > 0
        if let input, microphoneIsOpen {
            readInput(input, channelCount: inputChannelCount, frameCount: frameCount)
            var reference: UnsafePointer<Float>? = nil
            if chain.cancelsEcho {
                for frame in 0..<frameCount { echoReference[frame] = (mixLeft[frame] + mixRight[frame]) * 0.5 }
                reference = UnsafePointer(echoReference)
            }
            chain.processInput(left: microphoneLeft, right: microphoneRight, reference: reference, frameCount: frameCount)
            writeMicrophoneTap(frameCount: frameCount)
            for frame in 0..<frameCount {
                mixLeft[frame] += microphoneLeft[frame]
                mixRight[frame] += microphoneRight[frame]
            }
        }
        chain.processOutput(left: mixLeft, right: mixRight, frameCount: frameCount, microphoneIsOpen: microphoneIsOpen)
        publishPeak(publishedOutputPeak, of: mixLeft, mixRight, frameCount: frameCount)
        writeOutput(output, frameCount: frameCount)
        outputTapReference._withUnsafeGuaranteedRef { $0.write(output, frameCount: frameCount) }
        // Not while a segment is with the workers: its drum items read the kits' slots, and a
        // replaced kit's voices may be among them. A later block retires it.
        if !segmentInFlight { retireUnusedInstruments() }

        publishStatistics()
        publishedLastSoundingFrame.store(soundingUntil, ordering: .relaxed)
        publishedFrameTime.store(frameTime, ordering: .releasing)
    }

    /// Moves the instruments on towards `blockEnd`: renders the voices' next segment and mixes the
    /// segments before it while the workers render it, or, once the voices have reached the end
    /// of the quantum holding `blockEnd` (commands for later frames may not have been sent yet),
    /// mixes what is left.
    ///
    /// The mixing follows the voices. A segment's voices (`Sampler.beginVoices`) depend only on the
    /// commands applied before it and on the voices themselves; its mixing (tones, the item mixes
    /// added up, the song's volume, reverb and chorus) only on the mixes and on state no voice
    /// touches. So the mixing of one segment may wait until the next segment has been handed to
    /// the workers, and be done while they render it, for the same bits as one after the other. A
    /// command that changes what the mixing uses (`RenderCommand.Action.touchesMix`) first has
    /// every rendered segment mixed (`applyCommands`). A segment rendered on the audio thread alone
    /// leaves the mixing for the next one handed out, as long as a set of mixes is free.
    ///
    /// When the commands past the block are already queued (`declareCommandsQueued(before:)`,
    /// offline), the voices need not stop at the block's end: the segment after it is handed out
    /// while the block's last segments are mixed, and stays with the workers while the block is
    /// delivered; the next call ends it first. It begins only where no command is due, so no
    /// command is applied a block early (`mute` and a reverb preset act on the whole block).
    @_noAllocation @_noLocks
    func advanceInstruments(reaching blockEnd: FrameTime) {
        if segmentInFlight { endSegment() }
        let blockQuantumEnd = RenderQuantum.boundary(atOrAfter: blockEnd)
        if voicesUntil < blockQuantumEnd {
            freeMixSet()
            if beginSegment(reaching: blockQuantumEnd) { mixUnmixedSegments() }
            endSegment()
            return
        }
        let quantum = FrameTime(RenderQuantum.frameCount)
        let queuedQuantumEnd = queuedCommandsEnd.load(ordering: .acquiring) / quantum * quantum
        // Nested rather than `&&`, which takes its right side as a closure that would retain `self`.
        var mayRunAhead = voicesUntil == blockQuantumEnd
        if mayRunAhead { mayRunAhead = voicesUntil < queuedQuantumEnd }
        if mayRunAhead { mayRunAhead = !commandIsDue(at: voicesUntil) }
        if mayRunAhead {
            freeMixSet()
            let shared = beginSegment(reaching: queuedQuantumEnd)
            mixUnmixedSegments()
            if shared { segmentInFlight = true } else { endSegment() }
            return
        }
        mixUnmixedSegments()
    }

    /// Sends banks and kits nobody plays any more back to the control thread, while the ring has
    /// room (none is ever dropped: it waits in its slot for the next block).
    @_noAllocation @_noLocks
    func retireUnusedInstruments() {
        while events.freeCount() > 0, let bank = sampler.collectRetiredBank() {
            report(.retired(bank))
        }
        while events.freeCount() > 0, let kit = drums.collectRetiredKit() {
            report(.retired(kit))
        }
    }
}
