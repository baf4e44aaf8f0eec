import DSP
import Synchronization

/// The sampled-instrument part of the renderer: MIDI channel state, the installed banks, and the
/// voice pool. Audio thread only; the control thread reaches it through `RenderCommand`s.
///
/// Bank switches are pointer swaps: an installed bank becomes current at once, while voices of the
/// previous bank ring out. A bank that is no longer current and has no voice left is handed back
/// on the return ring, to be freed on the control thread.
struct Sampler {
    /// Banks that may be live at once: the current one and up to seven still ringing out.
    static var bankSlotCount: Int {
        @_noAllocation @_noLocks get { 8 }
    }

    /// What the audio thread reads of a slot's bank (`bankSlots` holds its retain).
    struct BankSlot {
        var samples: SampleFrames? = nil
        var regions: UnsafeBufferPointer<SamplerRegion> = UnsafeBufferPointer(start: nil, count: 0)
        var presets: UnsafeBufferPointer<SampleBank.Preset> = UnsafeBufferPointer(start: nil, count: 0)
        var keyRegionStarts: UnsafePointer<Int32>? = nil
        var keyRegions: UnsafePointer<Int32>? = nil
        var modulators: UnsafePointer<SamplerModulator>? = nil
        var curves: UnsafePointer<Float>? = nil
        /// `SampleBank.Layout.residentSamples`: nil when every sample is in memory.
        var residentSamples: UnsafePointer<Atomic<Int>>? = nil
        var sampleRequests: UnsafePointer<Atomic<Bool>>? = nil
        var pendingSampleRequests: UnsafePointer<Atomic<Int>>? = nil
        /// `SampleBank.Layout.triggeringControllers`.
        var triggeringControllers: (UInt64, UInt64) = (0, 0)
        var voiceCount = 0
    }

    /// Voices rendered together, one per SIMD lane. Eight rather than four: the filter's feedback
    /// is a latency-bound chain, and two vectors' worth of independent lanes keep the core busy
    /// while each waits; per-group costs are also shared by twice the voices.
    static var laneCount: Int {
        @_noAllocation @_noLocks get { 8 }
    }
    typealias Lanes = SIMD8<Float>

    let channels: UnsafeMutablePointer<ChannelState>
    /// Every channel's controller values, `MIDILimits.controllerCount` per channel.
    let controllerValues: UnsafeMutablePointer<UInt8>
    /// Every channel's polyphonic key pressures, `MIDILimits.keyCount` per channel.
    let keyPressureValues: UnsafeMutablePointer<UInt8>
    let banks: UnsafeMutablePointer<BankSlot>
    /// Every channel's keys, `MIDILimits.keyCount` per channel: round robin's counts and what
    /// release triggers need.
    let keyMemory: UnsafeMutablePointer<KeyMemory>
    /// The note-ons' random numbers (`SamplerRegion.lowRandom`): a fixed sequence from a fixed
    /// seed, so a song renders the same every time and live as offline.
    var randomState: UInt64 = 0x9E37_79B9_7F4A_7C15
    /// The audio thread's scratch for rendering voices.
    var workspace: VoiceLaneWorkspace
    /// The segment's voices split into work items, shared with the workers.
    let work: UnsafeMutablePointer<VoiceWorkItems>
    /// Voices in the list (`renderVoices`), and which of them were sounding when last looked at.
    var listedCount = 0
    let listedSounding: UnsafeMutablePointer<Bool>
    /// How many of `listedSounding` are true.
    var listedSoundingCount = 0
    /// Whether the list must be rebuilt before the next segment: set when a note takes a voice.
    /// Nothing else changes who is listed (a voice that fades keeps its slot), and nothing else
    /// may rebuild it: a live stream's own commands (a volume, a parameter), or a grid that the
    /// song does not start on, would rebuild it where an offline render of the song does not.
    var listIsStale = true
    /// The threads that render items beside the audio thread (`RenderConfiguration.threadCount`).
    var workers: VoiceWorkers?
    /// The banks installed: the current one and those ringing out; `banks` holds what each plays.
    var bankSlots: InstrumentSlots
    var pool: VoicePool
    let sampleRate: Double
    /// The shortest a note sounds before a note-off releases it (`RenderConfiguration.minimumNoteSeconds`).
    var minimumNoteFrames: FrameTime = 0
    /// The channel mode messages are obeyed on (`RenderConfiguration.basicChannel`).
    var basicChannel: UInt8 = 0
    /// The frame commands are being applied at: the renderer sets it before each segment.
    var now: FrameTime = 0
    /// The earliest `heldReleaseFrame` of any voice (`FrameTime.max`: none). The renderer ends its
    /// segment there, so a held note is released on its exact frame, as a note-off sent for that
    /// frame would be, whatever the block size.
    var nextHeldRelease = FrameTime.max

    // Statistics (audio thread writes; the renderer publishes them).
    var activeVoiceCount = 0
    /// Voices sounding at the start of the last segment, the fading ones included.
    var renderedVoiceCount = 0
    /// Nothing sounded at the start of the segment begun last: it rendered nothing.
    var segmentIsSilent = true
    var peakVoiceCount = 0
    var noteOnCount = 0
    /// `percussionChannelGain()`'s last value, and the percussion channel's controller serial then
    /// (none yet: a serial it cannot have).
    var percussionGain: Float = 1
    var percussionGainSerial = UInt32.max
    /// Note-ons that found no preset or no region for their key: nothing to play, nothing stuck.
    var unmappedNoteCount = 0
    /// Regions a note-on did not start because their sample was not yet in memory (`SampleResidency`).
    var sampleUnderrunCount = 0
    /// Voices ended because their sample's next frames were not yet decoded, counted by the
    /// threads that render them (`VoiceRenderContext.starvedVoices`).
    let starvedVoices: UnsafeMutablePointer<Atomic<Int>>
    /// Both kinds of sample underrun: regions not started, and voices starved.
    var sampleUnderruns: Int {
        @_noAllocation @_noLocks get { sampleUnderrunCount + starvedVoices.pointee.load(ordering: .relaxed) }
    }

    /// - Parameters:
    ///   - interpolation, kernel: how voices read their samples, and the build of the per-frame
    ///     loops that does it.
    ///   - sendsEnabled: whether voices feed the effects sends (`RenderConfiguration.effects`).
    init(sampleRate: Double, voiceCount: Int, fadeSlotCount: Int, interpolation: SamplerVoice.Interpolation = .cubic,
         kernel: SamplerKernelVariant = .generic, sendsEnabled: Bool = true, workerCount: Int = 0,
         stageClock: RenderStageClock = RenderStageClock()) {
        self.sampleRate = sampleRate
        channels = .allocate(capacity: MIDILimits.channelCount)
        controllerValues = .allocate(capacity: MIDILimits.channelCount * MIDILimits.controllerCount)
        keyPressureValues = .allocate(capacity: MIDILimits.channelCount * MIDILimits.keyCount)
        keyMemory = .allocate(capacity: MIDILimits.channelCount * MIDILimits.keyCount)
        keyMemory.initialize(repeating: KeyMemory(), count: MIDILimits.channelCount * MIDILimits.keyCount)
        for index in 0..<MIDILimits.channelCount {
            (channels + index).initialize(to: ChannelState(index: UInt8(index),
                                                           controllers: controllerValues + index * MIDILimits.controllerCount,
                                                           keyPressures: keyPressureValues + index * MIDILimits.keyCount))
        }
        bankSlots = InstrumentSlots(count: Self.bankSlotCount)
        banks = .allocate(capacity: Self.bankSlotCount)
        banks.initialize(repeating: BankSlot(), count: Self.bankSlotCount)
        pool = VoicePool(capacity: voiceCount, fadeCapacity: fadeSlotCount)
        workspace = VoiceLaneWorkspace()
        listedSounding = .allocate(capacity: pool.capacity + pool.fadeCapacity)
        listedSounding.initialize(repeating: false, count: pool.capacity + pool.fadeCapacity)
        starvedVoices = .allocate(capacity: 1)
        starvedVoices.initialize(to: Atomic(0))
        work = .allocate(capacity: 1)
        work.initialize(to: VoiceWorkItems(voiceCapacity: pool.capacity + pool.fadeCapacity, firstVoice: pool.voices,
                                           context: VoiceRenderContext(channels: channels, sampleRate: sampleRate, sendsEnabled: sendsEnabled,
                                                                       interpolation: interpolation, kernel: kernel,
                                                                       starvedVoices: starvedVoices, stageClock: stageClock)))
        workers = workerCount > 0 ? VoiceWorkers(count: workerCount, work: work, sampleRate: sampleRate) : nil
    }

    /// Frees the pools and hands every bank still held to `release`.
    /// - Thread: stopped.
    func deallocate(releasing release: (RetainedObject) -> Void) {
        // The workers first: nothing they read may go before they have stopped.
        workers?.deallocate()
        bankSlots.deallocate(releasing: release)
        channels.deinitialize(count: MIDILimits.channelCount)
        channels.deallocate()
        controllerValues.deallocate()
        keyPressureValues.deallocate()
        keyMemory.deallocate()
        banks.deinitialize(count: Self.bankSlotCount)
        banks.deallocate()
        pool.deallocate()
        workspace.deallocate()
        work.pointee.deallocate()
        work.deallocate()
        starvedVoices.deinitialize(count: 1)
        starvedVoices.deallocate()
        listedSounding.deallocate()
    }

    // MARK: Instrument slots

    /// Makes `bank` current. Returns false when every slot is still busy ringing out; the caller
    /// keeps the command and retries next block, after those voices have been faded.
    @_noAllocation @_noLocks
    mutating func install(_ handle: RetainedObject, layout: UnsafePointer<SampleBank.Layout>) -> Bool {
        let free = bankSlots.firstFree()
        guard free >= 0 else {
            // Make room: fade every voice of banks that are no longer current.
            for index in pool.activeIndices where pool.voices[index].isActive && pool.voices[index].bankSlot != bankSlots.current {
                pool.fadeOut(index, sampleRate: sampleRate)
            }
            return false
        }
        banks[free] = BankSlot(samples: layout.pointee.samples,
                               regions: layout.pointee.regions, presets: layout.pointee.presets,
                               keyRegionStarts: layout.pointee.keyRegionStarts.baseAddress,
                               keyRegions: layout.pointee.keyRegions.baseAddress,
                               modulators: layout.pointee.modulators.baseAddress,
                               curves: layout.pointee.curves.baseAddress,
                               residentSamples: layout.pointee.residentSamples,
                               sampleRequests: layout.pointee.sampleRequests,
                               pendingSampleRequests: layout.pointee.pendingSampleRequests,
                               triggeringControllers: layout.pointee.triggeringControllers, voiceCount: 0)
        bankSlots.occupy(free, with: handle)
        for index in 0..<MIDILimits.channelCount { selectPreset(channel: index) }
        for entry in layout.pointee.initialControllers {
            for channel in 0..<MIDILimits.channelCount {
                // A bank's starting values start no region a controller triggers.
                controlChange(channel: UInt8(channel), controller: UInt8(entry >> 8), value: UInt8(entry & 0xFF), triggers: false)
            }
        }
        return true
    }

    /// Hands back banks that are neither current nor used by any voice.
    @_noAllocation @_noLocks
    mutating func collectRetiredBank() -> RetainedObject? {
        for index in 0..<Self.bankSlotCount where bankSlots.isRingingOut(index) && banks[index].voiceCount <= 0 {
            banks[index] = BankSlot()
            return bankSlots.vacate(index)
        }
        return nil
    }

    /// A voice stopped sounding: its bank has one user fewer (-1: no voice ended).
    @_noAllocation @_noLocks
    mutating func voiceEnded(bankSlot: Int) {
        guard bankSlot >= 0, bankSlot < Self.bankSlotCount else { return }
        banks[bankSlot].voiceCount -= 1
    }
}
