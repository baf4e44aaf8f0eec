import DSP

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
    /// One control block of interleaved lanes: the voices being rendered together.
    let scratch: UnsafeMutablePointer<Lanes>
    /// Per-lane mix buses, `maxFrameCount` frames: groups add into their lanes, and the lanes are
    /// summed into left/right once per block rather than once per group.
    let busLeft: UnsafeMutablePointer<Lanes>
    let busRight: UnsafeMutablePointer<Lanes>
    /// Per-lane send buses, likewise; cleared only in a block where some voice sends to them.
    let busReverb: UnsafeMutablePointer<Lanes>
    let busChorus: UnsafeMutablePointer<Lanes>
    /// Whether a group of the block being rendered has sent to the reverb or chorus bus yet.
    var reverbBusInUse = false
    var chorusBusInUse = false
    /// Frames of the block being rendered (what a send bus is cleared for on its first use).
    var blockFrameCount = 0
    /// Whether voices feed the effects sends (`RenderConfiguration.effects`).
    var sendsEnabled = true
    /// Eight zero frames (of either encoding): what an empty lane of the SIMD reader reads.
    let silence: UnsafeMutablePointer<Float>
    /// A second control block of lanes, for a group whose voices' pools are stored at two widths.
    let otherEncodingScratch: UnsafeMutablePointer<Lanes>
    /// The voices of the group being rendered (up to `laneCount`).
    let group: UnsafeMutablePointer<UnsafeMutablePointer<SamplerVoice>>
    let groupBlocks: UnsafeMutablePointer<SamplerVoice.ControlBlock>
    /// Where the SIMD reader's lanes start (one frame before the first they interpolate from) and
    /// how they step, gathered lane by lane in memory and then loaded whole: writing single lanes
    /// of a vector held in registers goes through the stack and stalls on every write.
    let laneBases: UnsafeMutablePointer<UnsafeRawPointer>
    let lanePositions: UnsafeMutablePointer<LanePositions>
    /// The group's ramped gains for the block, gathered the same way.
    let laneGains: UnsafeMutablePointer<LaneGains>
    /// Each lane's filter for the block: the voice's own, or `passthrough` when it does not filter.
    let laneFilters: UnsafeMutablePointer<UnsafeMutablePointer<LowPassFilter>>
    let passthrough: UnsafeMutablePointer<LowPassFilter>
    /// Byte offset of `filter` in a `SamplerVoice`: lanes filter voices in place in the pool.
    let filterOffset: Int
    /// Byte offsets of the three vectors in `LanePositions`: a lane's numbers are stored one by one
    /// as plain scalars, which the reader then loads whole.
    let fractionOffset: Int
    let fractionStepOffset: Int
    let wholeStepOffset: Int
    /// The banks installed: the current one and those ringing out; `banks` holds what each plays.
    var bankSlots: InstrumentSlots
    var pool: VoicePool
    let sampleRate: Double
    var interpolation = SamplerVoice.Interpolation.cubic
    /// The build of the per-frame loops that renders: set before the audio thread starts.
    var kernel = SamplerKernelVariant.generic
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
    /// Voices the last `render` played, those that ended in it and the fading ones included.
    var renderedVoiceCount = 0
    var peakVoiceCount = 0
    var noteOnCount = 0
    /// Note-ons that found no preset or no region for their key: nothing to play, nothing stuck.
    var unmappedNoteCount = 0

    init(sampleRate: Double, voiceCount: Int, fadeSlotCount: Int, maxFrameCount: Int) {
        self.sampleRate = sampleRate
        channels = .allocate(capacity: MIDILimits.channelCount)
        controllerValues = .allocate(capacity: MIDILimits.channelCount * MIDILimits.controllerCount)
        keyPressureValues = .allocate(capacity: MIDILimits.channelCount * MIDILimits.keyCount)
        for index in 0..<MIDILimits.channelCount {
            (channels + index).initialize(to: ChannelState(index: UInt8(index),
                                                           controllers: controllerValues + index * MIDILimits.controllerCount,
                                                           keyPressures: keyPressureValues + index * MIDILimits.keyCount))
        }
        bankSlots = InstrumentSlots(count: Self.bankSlotCount)
        banks = .allocate(capacity: Self.bankSlotCount)
        banks.initialize(repeating: BankSlot(), count: Self.bankSlotCount)
        pool = VoicePool(capacity: voiceCount, fadeCapacity: fadeSlotCount)
        // The buffers are written now, so that no page of them is first touched (faulted in) on the
        // audio thread: a block longer than any before, or a group's first use of a bus, would.
        scratch = .allocate(capacity: SamplerVoice.controlBlockFrameCount)
        scratch.initialize(repeating: Lanes(), count: SamplerVoice.controlBlockFrameCount)
        busLeft = .allocate(capacity: maxFrameCount)
        busLeft.initialize(repeating: Lanes(), count: maxFrameCount)
        busRight = .allocate(capacity: maxFrameCount)
        busRight.initialize(repeating: Lanes(), count: maxFrameCount)
        busReverb = .allocate(capacity: maxFrameCount)
        busReverb.initialize(repeating: Lanes(), count: maxFrameCount)
        busChorus = .allocate(capacity: maxFrameCount)
        busChorus.initialize(repeating: Lanes(), count: maxFrameCount)
        silence = .allocate(capacity: 8)
        silence.initialize(repeating: 0, count: 8)
        otherEncodingScratch = .allocate(capacity: SamplerVoice.controlBlockFrameCount)
        otherEncodingScratch.initialize(repeating: Lanes(), count: SamplerVoice.controlBlockFrameCount)
        group = .allocate(capacity: Self.laneCount)
        groupBlocks = .allocate(capacity: Self.laneCount)
        groupBlocks.initialize(repeating: SamplerVoice.ControlBlock(), count: Self.laneCount)
        laneBases = .allocate(capacity: Self.laneCount)
        laneBases.initialize(repeating: UnsafeRawPointer(silence), count: Self.laneCount)
        lanePositions = .allocate(capacity: 1)
        lanePositions.initialize(to: LanePositions())
        laneGains = .allocate(capacity: 1)
        laneGains.initialize(to: LaneGains())
        passthrough = .allocate(capacity: 1)
        passthrough.initialize(to: LowPassFilter())
        laneFilters = .allocate(capacity: Self.laneCount)
        laneFilters.initialize(repeating: passthrough, count: Self.laneCount)
        filterOffset = MemoryLayout<SamplerVoice>.offset(of: \SamplerVoice.filter)!
        fractionOffset = MemoryLayout<LanePositions>.offset(of: \LanePositions.fraction)!
        fractionStepOffset = MemoryLayout<LanePositions>.offset(of: \LanePositions.fractionStep)!
        wholeStepOffset = MemoryLayout<LanePositions>.offset(of: \LanePositions.wholeStep)!
    }

    /// Frees the pools and hands every bank still held to `release`.
    /// - Thread: stopped.
    func deallocate(releasing release: (RetainedObject) -> Void) {
        bankSlots.deallocate(releasing: release)
        channels.deinitialize(count: MIDILimits.channelCount)
        channels.deallocate()
        controllerValues.deallocate()
        keyPressureValues.deallocate()
        banks.deinitialize(count: Self.bankSlotCount)
        banks.deallocate()
        pool.deallocate()
        scratch.deallocate()
        busLeft.deallocate()
        busRight.deallocate()
        busReverb.deallocate()
        busChorus.deallocate()
        silence.deallocate()
        otherEncodingScratch.deallocate()
        group.deallocate()
        groupBlocks.deallocate()
        laneBases.deallocate()
        lanePositions.deallocate()
        laneGains.deallocate()
        laneFilters.deallocate()
        passthrough.deallocate()
    }

    // MARK: Commands

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
                               modulators: layout.pointee.modulators.baseAddress, voiceCount: 0)
        bankSlots.occupy(free, with: handle)
        for index in 0..<MIDILimits.channelCount { selectPreset(channel: index) }
        return true
    }

    @_noAllocation @_noLocks
    mutating func noteOn(channel: UInt8, key: UInt8, velocity: UInt8) {
        guard Int(channel) < MIDILimits.channelCount, Int(key) < MIDILimits.keyCount else { return }
        guard velocity > 0 else { return noteOff(channel: channel, key: key) }
        noteOnCount += 1
        // Pointers, not copies: in a burst of note-ons, copying the channel state and every region
        // tested (a few hundred bytes each) cost more than the rest of starting a voice.
        let state = channels + Int(channel)
        let presetIndex = state.pointee.presetIndex
        guard bankSlots.current >= 0, presetIndex >= 0 else { unmappedNoteCount += 1; return }
        let slot = banks + bankSlots.current
        guard let samples = slot.pointee.samples, let regions = slot.pointee.regions.baseAddress,
              let modulators = slot.pointee.modulators, let keyRegionStarts = slot.pointee.keyRegionStarts, let keyRegions = slot.pointee.keyRegions,
              presetIndex < slot.pointee.presets.count else { unmappedNoteCount += 1; return }
        let keyEntry = presetIndex * MIDILimits.keyCount + Int(key)

        // Same note again on this channel: the old one releases (no doubled, phasing voices).
        var sounding = pool.firstSoundingVoice(channel: channel, key: key)
        while sounding < pool.capacity {
            let next = pool.nextSoundingVoice(after: sounding)
            pool.release(sounding)
            sounding = next
        }

        var started = 0
        for candidate in Int(keyRegionStarts[keyEntry]) ..< Int(keyRegionStarts[keyEntry + 1]) {
            // The velocity range sits beside the region's index: the regions of the other layers
            // are never read.
            guard SampleBank.Layout.velocity(velocity, isIn: keyRegions[2 * candidate + 1]) else { continue }
            let region = regions + Int(keyRegions[2 * candidate])
            if region.pointee.exclusiveClass != 0 { silenceExclusiveClass(region.pointee.exclusiveClass, channel: channel) }
            let acquired = pool.acquire(sampleRate: sampleRate)
            voiceEnded(bankSlot: acquired.endedBankSlots.0)
            voiceEnded(bankSlot: acquired.endedBankSlots.1)
            let voice = acquired.voice
            voice.pointee.start(region: region, samples: samples, modulators: modulators, key: key, velocity: velocity,
                                channel: channel, state: state, engineRate: sampleRate)
            voice.pointee.bankSlot = bankSlots.current
            voice.pointee.isPercussion = state.pointee.isPercussion
            voice.pointee.noteOnFrame = now
            voice.pointee.heldReleaseFrame = .max
            voice.pointee.isCaughtBySostenuto = false
            voice.pointee.isHeldBySostenuto = false
            banks[bankSlots.current].voiceCount += 1
            pool.refreshKey(voice - pool.voices)
            started += 1
        }
        if started == 0 { unmappedNoteCount += 1 }
    }

    @_noAllocation @_noLocks
    mutating func noteOff(channel: UInt8, key: UInt8) {
        guard Int(channel) < MIDILimits.channelCount else { return }
        let state = channels + Int(channel)
        var sounding = pool.firstSoundingVoice(channel: channel, key: key)
        while sounding < pool.capacity {
            let next = pool.nextSoundingVoice(after: sounding)
            let voice = pool.voices + sounding
            if state.pointee.sostenutoPedal && voice.pointee.isCaughtBySostenuto {
                voice.pointee.isHeldBySostenuto = true
            } else if state.pointee.sustainPedal {
                voice.pointee.isHeldByPedal = true
            } else {
                releaseKey(sounding)
            }
            sounding = next
        }
    }

    /// Releases voice `index` because its key, or the pedal holding it, went up: at once, or, when
    /// it has sounded less than the minimum note length, at the frame it reaches it. A note-off at
    /// the note-on's own frame would otherwise release a voice whose envelope has not risen yet,
    /// and the note would never be heard. (FluidSynth checks its pending note-offs once per
    /// 64-frame block; here the release falls on its exact frame.)
    @_noAllocation @_noLocks
    mutating func releaseKey(_ index: Int) {
        let heldUntil = pool.voices[index].noteOnFrame &+ minimumNoteFrames
        guard heldUntil > now else { return pool.release(index) }
        pool.voices[index].heldReleaseFrame = heldUntil
        nextHeldRelease = min(nextHeldRelease, heldUntil)
    }

    /// Releases the voices whose minimum note length ends at or before `now`.
    @_noAllocation @_noLocks
    mutating func releaseHeldNotes() {
        guard nextHeldRelease <= now else { return }
        nextHeldRelease = .max
        for index in pool.activeIndices where pool.voices[index].isActive && !pool.voices[index].isReleased
            && pool.voices[index].heldReleaseFrame != .max {
            let due = pool.voices[index].heldReleaseFrame
            if due <= now {
                pool.voices[index].heldReleaseFrame = .max
                pool.release(index)
            } else {
                nextHeldRelease = min(nextHeldRelease, due)
            }
        }
    }

    @_noAllocation @_noLocks
    mutating func controlChange(channel: UInt8, controller: UInt8, value: UInt8) {
        guard Int(channel) < MIDILimits.channelCount else { return }
        let state = channels + Int(channel)
        let value = min(value, 127)
        state.pointee.setController(controller, value)
        switch MIDIController.named(controller) {
        case .bankSelect?: state.pointee.bankMSB = value
        case .bankSelectLSB?: state.pointee.bankLSB = value
        case .sustainPedal?:
            let down = MIDIController.isDown(pedalValue: value)
            state.pointee.sustainPedal = down
            if !down { releasePedalHeldVoices(channel: channel) }
        case .sostenutoPedal?:
            let down = MIDIController.isDown(pedalValue: value)
            // Only the moment it goes down catches notes: a repeated "down" catches no new ones.
            if down && !state.pointee.sostenutoPedal { catchSostenutoNotes(channel: channel) }
            if !down && state.pointee.sostenutoPedal { releaseSostenutoNotes(channel: channel) }
            state.pointee.sostenutoPedal = down
        case .registeredParameterMSB?: state.pointee.registeredParameter.msb = value
        case .registeredParameterLSB?: state.pointee.registeredParameter.lsb = value
        case .nonRegisteredParameterLSB?, .nonRegisteredParameterMSB?:
            state.pointee.registeredParameter = (127, 127)  // an NRPN deselects the RPN
        case .dataEntry?: state.pointee.enterData(msb: value, lsb: nil)
        case .dataEntryLSB?: state.pointee.enterData(msb: nil, lsb: value)
        case .allSoundOff?: allSoundOff(channel: channel)
        case .resetAllControllers?: resetAllControllers(channel: channel)
        case .allNotesOff?: allNotesOff(channel: channel)
        case .omniOff?, .omniOn?, .monoOn?, .polyOn?:
            // MIDI 1.0: a mode message is obeyed on the basic channel only, and acts as All Notes
            // Off there. Staccato stays multi-timbral whatever the mode, so that is all it does.
            // (FluidSynth also changes the mode of the basic channel's group, all 16 channels by
            // default, and so releases every channel's notes: a song that sends CC124 on channel
            // 1 loses the chords of the others. Only the basic channel's notes end here.)
            if channel == basicChannel { allNotesOff(channel: channel) }
        default: break
        }
    }

    @_noAllocation @_noLocks
    mutating func programChange(channel: UInt8, program: UInt8) {
        guard Int(channel) < MIDILimits.channelCount else { return }
        channels[Int(channel)].program = min(program, 127)
        selectPreset(channel: Int(channel))
    }

    @_noAllocation @_noLocks
    mutating func pitchBend(channel: UInt8, value: UInt16) {
        guard Int(channel) < MIDILimits.channelCount else { return }
        channels[Int(channel)].pitchBend = min(value, 16_383)
        channels[Int(channel)].noteSourceChange()
    }

    @_noAllocation @_noLocks
    mutating func channelPressure(channel: UInt8, pressure: UInt8) {
        guard Int(channel) < MIDILimits.channelCount else { return }
        channels[Int(channel)].channelPressure = min(pressure, 127)
        channels[Int(channel)].noteSourceChange()
    }

    /// Polyphonic key pressure: the pressure of `key` alone, which the voices played on that key
    /// read through a poly-pressure modulator source (FluidSynth's `polyPressure`); the channel's
    /// own pressure stays where it is. Every voice of the channel re-evaluates its modulators, as
    /// for channel pressure: the others' come out unchanged.
    @_noAllocation @_noLocks
    mutating func polyPressure(channel: UInt8, key: UInt8, pressure: UInt8) {
        guard Int(channel) < MIDILimits.channelCount, Int(key) < MIDILimits.keyCount else { return }
        channels[Int(channel)].keyPressures[Int(key)] = min(pressure, 127)
        channels[Int(channel)].noteSourceChange()
    }

    /// Releases every note of `channel`, pedal-held ones included: All Notes Off is the message
    /// front ends send on every exit path, so it must leave nothing sounding. A note younger than
    /// the minimum note length sounds that long first, as FluidSynth's all-notes-off does.
    @_noAllocation @_noLocks
    mutating func allNotesOff(channel: UInt8) {
        for index in pool.activeIndices where pool.voices[index].isActive && pool.voices[index].channel == channel {
            releaseKey(index)
        }
    }

    /// Reset All Controllers (CC121) on `channel`: the pedals come up and let go of their notes.
    @_noAllocation @_noLocks
    mutating func resetAllControllers(channel: UInt8) {
        let sostenutoWasDown = channels[Int(channel)].sostenutoPedal
        channels[Int(channel)].resetControllers()
        releasePedalHeldVoices(channel: channel)
        if sostenutoWasDown { releaseSostenutoNotes(channel: channel) }
    }

    /// A system reset (GM, GM2, GS, XG System On): every sound stops, as FluidSynth's reset stops
    /// it, and every channel is as it was at start: General MIDI's default controllers, program 0
    /// of bank 0, channel 10 the only drum channel, no tuning.
    @_noAllocation @_noLocks
    mutating func systemReset() {
        allSoundOff(channel: nil)
        for index in 0..<MIDILimits.channelCount {
            channels[index] = ChannelState(index: UInt8(index), controllers: channels[index].controllers,
                                           keyPressures: channels[index].keyPressures)
            selectPreset(channel: index)
        }
    }

    /// GS "use for rhythm part": `channel` becomes a drum channel playing bank 128, or a melodic
    /// one. Like FluidSynth (and the Roland units), its controllers are reset and program 0 of
    /// the part's bank is selected: the file sends its own program change after.
    @_noAllocation @_noLocks
    mutating func setRhythmPart(channel: UInt8, isDrum: Bool) {
        guard Int(channel) < MIDILimits.channelCount else { return }
        resetAllControllers(channel: channel)
        channels[Int(channel)].isPercussion = isDrum
        channels[Int(channel)].bankMSB = 0
        channels[Int(channel)].bankLSB = 0
        channels[Int(channel)].program = 0
        selectPreset(channel: Int(channel))
    }

    /// Fades every voice of `channel` (all channels when `channel` is nil) out over 5 ms.
    @_noAllocation @_noLocks
    mutating func allSoundOff(channel: UInt8?) {
        for index in pool.activeIndices where pool.voices[index].isActive && (channel == nil || pool.voices[index].channel == channel!) {
            pool.fadeOut(index, sampleRate: sampleRate)
        }
    }

    // MARK: Rendering

    /// Adds every sounding voice — the pool's and the fading ones — into `left`/`right`, and
    /// their sends into the mono `reverb` and `chorus` buses, `laneCount` at a time so their reads,
    /// filters and gains share SIMD lanes.
    @_noAllocation @_noLocks
    mutating func render(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>,
                         reverb: UnsafeMutablePointer<Float>, chorus: UnsafeMutablePointer<Float>, frameCount: Int) {
        // Levels move and voices end: the pool's steal scores are rebuilt at the next note-on.
        pool.keysValid = false
        busLeft.update(repeating: Lanes(), count: frameCount)
        busRight.update(repeating: Lanes(), count: frameCount)
        reverbBusInUse = false
        chorusBusInUse = false
        blockFrameCount = frameCount
        // Counted as voices are grouped, less those that end (`renderGroup`): a second pass over a
        // large pool would cost more than the count is worth.
        activeVoiceCount = 0
        renderedVoiceCount = 0
        var grouped = 0
        var activeBound = 0
        for index in 0 ..< pool.activeBound + pool.fadeCapacity {
            let voice = index < pool.activeBound ? pool.voices + index : pool.fading + (index - pool.activeBound)
            guard voice.pointee.isActive else { continue }
            if index < pool.activeBound {
                activeVoiceCount += 1
                activeBound = index + 1
            }
            group[grouped] = voice
            grouped += 1
            renderedVoiceCount += 1
            if grouped == Self.laneCount {
                renderGroup(count: grouped, frameCount: frameCount)
                grouped = 0
            }
        }
        if grouped > 0 { renderGroup(count: grouped, frameCount: frameCount) }
        pool.activeBound = activeBound
        for frame in 0..<frameCount {
            left[frame] += busLeft[frame].sum()
            right[frame] += busRight[frame].sum()
        }
        if reverbBusInUse { for frame in 0..<frameCount { reverb[frame] += busReverb[frame].sum() } }
        if chorusBusInUse { for frame in 0..<frameCount { chorus[frame] += busChorus[frame].sum() } }
        peakVoiceCount = max(peakVoiceCount, activeVoiceCount)
    }

    /// Renders the `count` voices in `group` for `frameCount` frames into the lane buses, a control
    /// block at a time.
    @_noAllocation @_noLocks
    mutating func renderGroup(count: Int, frameCount: Int) {
        var offset = 0
        while offset < frameCount {
            let blockFrames = min(SamplerVoice.controlBlockFrameCount, frameCount - offset)
            var filtering = false
            for lane in 0..<Self.laneCount {
                if lane < count && group[lane].pointee.isActive {
                    let voice = group[lane]
                    voice.pointee.prepare(frameCount: blockFrames, channel: channels + Int(voice.pointee.channel),
                                          sampleRate: sampleRate, sends: sendsEnabled, into: &groupBlocks[lane])
                } else {
                    groupBlocks[lane] = SamplerVoice.ControlBlock()
                }
                if groupBlocks[lane].filterActive {
                    laneFilters[lane] = (UnsafeMutableRawPointer(group[lane]) + filterOffset).assumingMemoryBound(to: LowPassFilter.self)
                    filtering = true
                } else {
                    laneFilters[lane] = passthrough
                }
            }
            readLanes(count: count, frameCount: blockFrames)
            // Every passthrough lane writes its (zero) state back into the one shared filter:
            // clearing it each block keeps anything stray from carrying over.
            if filtering {
                passthrough.pointee.reset()
                var filter = LowPassFilterLanes(laneFilters)
                mixGroup(frameCount: blockFrames, filtering: true, filter: &filter, offset: offset)
                filter.store(into: laneFilters)
            } else {
                var unused = LowPassFilterLanes()
                mixGroup(frameCount: blockFrames, filtering: false, filter: &unused, offset: offset)
            }
            for lane in 0..<count where group[lane].pointee.isActive {
                let voice = group[lane]
                voice.pointee.finish(groupBlocks[lane], frameCount: blockFrames)
                guard !voice.pointee.isActive else { continue }
                voiceEnded(bankSlot: voice.pointee.bankSlot)
                if voice < pool.voices + pool.capacity && voice >= pool.voices { activeVoiceCount -= 1 }
            }
            offset += blockFrames
        }
    }

    /// Reads one control block of every lane into `scratch` and sets each lane's `produced`. Runs
    /// that no lane's loop end or sample end interrupts go through the SIMD reader; the frame or
    /// two where some lane crosses its boundary are read lane by lane, and the SIMD reader resumes.
    @_noAllocation @_noLocks
    mutating func readLanes(count: Int, frameCount: Int) {
        let lanes = UnsafeMutableRawPointer(scratch).assumingMemoryBound(to: Float.self)
        var done = 0
        while done < frameCount {
            var clear = frameCount - done
            for lane in 0..<count where groupBlocks[lane].isReading {
                clear = min(clear, group[lane].pointee.clearFrameCount(limit: clear))
            }
            if clear > 0 {
                readGroup(count: count, from: done, frameCount: clear)
                done += clear
                continue
            }
            for lane in 0..<Self.laneCount {
                let output = lanes + done * Self.laneCount + lane
                output.pointee = 0
                guard lane < count, groupBlocks[lane].isReading else { continue }
                let voice = group[lane]
                if voice.pointee.readSample(into: output, stride: 1, frameCount: 1, increment: voice.pointee.lastIncrement,
                                            interpolation: interpolation) == 0 {
                    // The sample ended: the lane reads silence from here on.
                    groupBlocks[lane].isReading = false
                    groupBlocks[lane].produced = done
                }
            }
            done += 1
        }
        for lane in 0..<count where groupBlocks[lane].isReading { groupBlocks[lane].produced = frameCount }
    }

    /// Reads `frameCount` frames from frame `from` of the block for every lane at once (no lane is
    /// near a boundary) through the kernel's SIMD reader. Lanes not reading read silence at a
    /// standstill.
    @_noAllocation @_noLocks
    func readGroup(count: Int, from: Int, frameCount: Int) {
        // Within a run each lane's position is split into a whole frame count from its base and a
        // Float fraction: cheap to step and convert. The error (under 1e-5 frames a block) never
        // accumulates: the Double position is advanced exactly at the end.
        lanePositions.pointee = LanePositions()
        let positions = UnsafeMutableRawPointer(lanePositions)
        // A lane's numbers, stored as scalars (a single lane written into a vector value goes
        // through the stack and stalls on every write); a silent lane's stay zero, so it stands
        // still on the silence rather than stepping past its eight frames.
        func place(lane: Int, fraction: Float, fractionStep: Float, wholeStep: UInt32) {
            positions.storeBytes(of: fraction, toByteOffset: fractionOffset + 4 * lane, as: Float.self)
            positions.storeBytes(of: fractionStep, toByteOffset: fractionStepOffset + 4 * lane, as: Float.self)
            positions.storeBytes(of: wholeStep, toByteOffset: wholeStepOffset + 4 * lane, as: UInt32.self)
        }
        var wordLanes = 0, floatLanes = 0
        for lane in 0..<Self.laneCount {
            guard lane < count, groupBlocks[lane].isReading, let samples = group[lane].pointee.samples else {
                laneBases[lane] = UnsafeRawPointer(silence + 1)
                continue
            }
            let voice = group[lane]
            let start = Int(voice.pointee.position)
            laneBases[lane] = samples.address(ofFrame: start - 1)
            if samples.encoding == .int16 { wordLanes |= 1 << lane } else { floatLanes |= 1 << lane }
            let increment = voice.pointee.lastIncrement
            place(lane: lane, fraction: Float(voice.pointee.position - Double(start)),
                  fractionStep: Float(increment - Double(UInt32(increment))), wholeStep: UInt32(increment))
        }
        let output = scratch + from
        if floatLanes == 0 || wordLanes == 0 {
            kernel.readLanes(cubic: interpolation.isCubic, encoding: floatLanes == 0 ? .int16 : .float32, bases: laneBases,
                             positions: lanePositions, into: output, frameCount: frameCount)
        } else {
            // Voices of two banks stored at different widths (one ringing out after a switch): each
            // width is read in a pass of its own with the other's lanes silent, and the passes are
            // summed; a silent lane adds exact zeros, so every lane's frames are as one pass reads them.
            let all = lanePositions.pointee
            var bases = SIMD8<UInt>()
            for lane in 0..<Self.laneCount { bases[lane] = UInt(bitPattern: laneBases[lane]) }
            func silence(lanes: Int) {
                for lane in 0..<Self.laneCount where lanes & (1 << lane) != 0 {
                    laneBases[lane] = UnsafeRawPointer(self.silence + 1)
                    place(lane: lane, fraction: 0, fractionStep: 0, wholeStep: 0)
                }
            }
            silence(lanes: floatLanes)
            kernel.readLanes(cubic: interpolation.isCubic, encoding: .int16, bases: laneBases, positions: lanePositions,
                             into: output, frameCount: frameCount)
            lanePositions.pointee = all
            for lane in 0..<Self.laneCount { laneBases[lane] = UnsafeRawPointer(bitPattern: bases[lane])! }
            silence(lanes: wordLanes)
            kernel.readLanes(cubic: interpolation.isCubic, encoding: .float32, bases: laneBases, positions: lanePositions,
                             into: otherEncodingScratch, frameCount: frameCount)
            for frame in 0..<frameCount { output[frame] += otherEncodingScratch[frame] }
        }
        for lane in 0..<count where groupBlocks[lane].isReading {
            group[lane].pointee.position += Double(frameCount) * group[lane].pointee.lastIncrement
        }
    }

    /// Adds the lanes into the lane buses at `offset` in the block, each through its own ramped
    /// gains and, with `filtering`, its lane of `filter`; into the send buses too when some lane
    /// sends (a send bus is cleared on its first use in a block). Lanes past a voice's end hold
    /// zeros, and empty lanes have zero gains, so all of them mix in one pass.
    @_noAllocation @_noLocks
    mutating func mixGroup(frameCount: Int, filtering: Bool, filter: inout LowPassFilterLanes, offset: Int) {
        let b = groupBlocks
        // Each vector built whole from its eight lanes: single-lane writes into a vector go
        // through the stack and stall on every write.
        var gains = LaneGains()
        gains.leftStart = Lanes(b[0].leftStart, b[1].leftStart, b[2].leftStart, b[3].leftStart, b[4].leftStart, b[5].leftStart, b[6].leftStart, b[7].leftStart)
        gains.leftStep = Lanes(b[0].leftStep, b[1].leftStep, b[2].leftStep, b[3].leftStep, b[4].leftStep, b[5].leftStep, b[6].leftStep, b[7].leftStep)
        gains.rightStart = Lanes(b[0].rightStart, b[1].rightStart, b[2].rightStart, b[3].rightStart, b[4].rightStart, b[5].rightStart, b[6].rightStart, b[7].rightStart)
        gains.rightStep = Lanes(b[0].rightStep, b[1].rightStep, b[2].rightStep, b[3].rightStep, b[4].rightStep, b[5].rightStep, b[6].rightStep, b[7].rightStep)
        gains.reverbStart = Lanes(b[0].reverbStart, b[1].reverbStart, b[2].reverbStart, b[3].reverbStart, b[4].reverbStart, b[5].reverbStart, b[6].reverbStart, b[7].reverbStart)
        gains.reverbStep = Lanes(b[0].reverbStep, b[1].reverbStep, b[2].reverbStep, b[3].reverbStep, b[4].reverbStep, b[5].reverbStep, b[6].reverbStep, b[7].reverbStep)
        gains.chorusStart = Lanes(b[0].chorusStart, b[1].chorusStart, b[2].chorusStart, b[3].chorusStart, b[4].chorusStart, b[5].chorusStart, b[6].chorusStart, b[7].chorusStart)
        gains.chorusStep = Lanes(b[0].chorusStep, b[1].chorusStep, b[2].chorusStep, b[3].chorusStep, b[4].chorusStep, b[5].chorusStep, b[6].chorusStep, b[7].chorusStep)
        // The lanes hold frames at their pools' stored scale: each lane's gains carry its scale (a
        // power of two, so the products are exact and the bits those of scaling every frame).
        let scales = Lanes(b[0].sampleScale, b[1].sampleScale, b[2].sampleScale, b[3].sampleScale,
                           b[4].sampleScale, b[5].sampleScale, b[6].sampleScale, b[7].sampleScale)
        gains.leftStart *= scales
        gains.leftStep *= scales
        gains.rightStart *= scales
        gains.rightStep *= scales
        gains.reverbStart *= scales
        gains.reverbStep *= scales
        gains.chorusStart *= scales
        gains.chorusStep *= scales
        laneGains.pointee = gains
        var sendsReverb = false, sendsChorus = false
        for lane in 0..<Self.laneCount {
            if b[lane].sendsReverb { sendsReverb = true }
            if b[lane].sendsChorus { sendsChorus = true }
        }
        // The kernel's chorus loop also adds to the reverb bus (a chorus-only loop is not worth having).
        if (sendsReverb || sendsChorus) && !reverbBusInUse {
            reverbBusInUse = true
            busReverb.update(repeating: Lanes(), count: blockFrameCount)
        }
        if sendsChorus && !chorusBusInUse {
            chorusBusInUse = true
            busChorus.update(repeating: Lanes(), count: blockFrameCount)
        }
        kernel.mixLanes(scratch, frameCount: frameCount, gains: laneGains, filtering: filtering, filter: &filter,
                        sendsReverb: sendsReverb, sendsChorus: sendsChorus,
                        busLeft: busLeft + offset, busRight: busRight + offset,
                        busReverb: busReverb + offset, busChorus: busChorus + offset)
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

    // MARK: Helpers

    /// A voice stopped sounding: its bank has one user fewer (-1: no voice ended).
    @_noAllocation @_noLocks
    mutating func voiceEnded(bankSlot: Int) {
        guard bankSlot >= 0, bankSlot < Self.bankSlotCount else { return }
        banks[bankSlot].voiceCount -= 1
    }

    @_noAllocation @_noLocks
    mutating func releasePedalHeldVoices(channel: UInt8) {
        for index in pool.activeIndices where pool.voices[index].isActive && pool.voices[index].isHeldByPedal
            && pool.voices[index].channel == channel {
            releaseKey(index)
        }
    }

    /// The sostenuto pedal went down: the notes of `channel` whose keys are down now are caught.
    /// Notes only the sustain pedal holds are not (their keys are up), as in FluidSynth.
    @_noAllocation @_noLocks
    mutating func catchSostenutoNotes(channel: UInt8) {
        for index in pool.activeIndices where pool.voices[index].isActive && pool.voices[index].channel == channel
            && !pool.voices[index].isReleased && !pool.voices[index].isHeldByPedal
            && pool.voices[index].heldReleaseFrame == .max {
            pool.voices[index].isCaughtBySostenuto = true
        }
    }

    /// The sostenuto pedal came up: the notes it held are released, or handed to the sustain
    /// pedal when that is down.
    @_noAllocation @_noLocks
    mutating func releaseSostenutoNotes(channel: UInt8) {
        let sustained = channels[Int(channel)].sustainPedal
        for index in pool.activeIndices where pool.voices[index].isActive && pool.voices[index].channel == channel {
            pool.voices[index].isCaughtBySostenuto = false
            guard pool.voices[index].isHeldBySostenuto else { continue }
            pool.voices[index].isHeldBySostenuto = false
            if sustained { pool.voices[index].isHeldByPedal = true } else { releaseKey(index) }
        }
    }

    @_noAllocation @_noLocks
    mutating func silenceExclusiveClass(_ exclusiveClass: UInt16, channel: UInt8) {
        for index in pool.activeIndices where pool.voices[index].isActive && pool.voices[index].channel == channel
            && pool.voices[index].exclusiveClass == exclusiveClass {
            pool.fadeOut(index, sampleRate: sampleRate)
        }
    }

    /// Picks the channel's preset in the current bank, falling back as `SampleBank.Preset.index`
    /// says when the bank lacks the one asked for. Percussion uses the percussion bank.
    @_noAllocation @_noLocks
    mutating func selectPreset(channel: Int) {
        let state = channels + channel
        state.pointee.presetIndex = -1
        guard bankSlots.current >= 0 else { return }
        let percussion = state.pointee.isPercussion
        state.pointee.presetIndex = SampleBank.Preset.index(
            playing: percussion ? SampleBank.Preset.percussionBank : UInt16(state.pointee.bankMSB),
            program: state.pointee.program, percussion: percussion, in: banks[bankSlots.current].presets)
    }
}
