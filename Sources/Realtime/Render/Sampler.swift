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
         kernel: SamplerKernelVariant = .generic, sendsEnabled: Bool = true, workerCount: Int = 0) {
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
                                                                       starvedVoices: starvedVoices)))
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

    @_noAllocation @_noLocks
    mutating func noteOn(channel: UInt8, key: UInt8, velocity: UInt8) {
        guard Int(channel) < MIDILimits.channelCount, Int(key) < MIDILimits.keyCount else { return }
        guard velocity > 0 else { return noteOff(channel: channel, key: key) }
        noteOnCount += 1
        // Pointers, not copies: in a burst of note-ons, copying the channel state and every region
        // tested (a few hundred bytes each) cost more than the rest of starting a voice.
        let state = channels + Int(channel)
        guard let (slot, regions, keyRegions, candidates) = regionsOfKey(key, state: state) else { unmappedNoteCount += 1; return }
        let preset = slot.pointee.presets.baseAddress! + state.pointee.presetIndex
        let isKeyswitch = key >= preset.pointee.lowKeyswitch && key <= preset.pointee.highKeyswitch
        if isKeyswitch { state.pointee.keyswitch = key }

        // Same note again on this channel: the old one releases (no doubled, phasing voices).
        var sounding = pool.firstSoundingVoice(channel: channel, key: key)
        while sounding < pool.capacity {
            let next = pool.nextSoundingVoice(after: sounding)
            pool.release(sounding)
            sounding = next
        }

        let memory = keyMemory(channel: channel, key: key)
        let noteCount = memory.pointee.noteOnCount
        let random = nextRandom()
        memory.pointee.noteOnCount = noteCount &+ 1
        memory.pointee.random = random
        memory.pointee.noteOnFrame = now
        memory.pointee.velocity = velocity
        memory.pointee.isDown = true
        memory.pointee.forgetReleases()
        var started = 0
        let firstSerial = pool.nextSerial
        // Whether another key of the channel is down: looked up once, for the first region that asks.
        var otherKeysDown: Bool? = nil
        for candidate in candidates {
            guard let region = answeringRegion(candidate, regions: regions, keyRegions: keyRegions, velocity: velocity,
                                               channel: channel, state: state, noteCount: noteCount, random: random) else { continue }
            switch region.pointee.trigger {
            case .attack: break
            case .release:
                memory.pointee.releasePending = true
                continue
            case .releaseKey:
                memory.pointee.releaseKeyPending = true
                continue
            case .first, .legato:
                let legato = otherKeysDown ?? anotherKeyIsDown(channel: channel, besides: key)
                otherKeysDown = legato
                if case .first = region.pointee.trigger, legato { continue }
                if case .legato = region.pointee.trigger, !legato { continue }
            }
            startVoice(region: region, slot: slot, key: key, velocity: velocity, channel: channel, state: state, sparing: firstSerial)
            started += 1
        }
        if started == 0 && !isKeyswitch && !memory.pointee.releasePending && !memory.pointee.releaseKeyPending { unmappedNoteCount += 1 }
    }

    /// The current bank's slot, its regions and key table, and the entries of that table for
    /// `key` in the channel's preset (`SampleBank.Layout.keyRegions`: a region index, then its
    /// velocity range); nil when the channel plays no preset.
    @_noAllocation @_noLocks
    func regionsOfKey(_ key: UInt8, state: UnsafeMutablePointer<ChannelState>)
        -> (UnsafeMutablePointer<BankSlot>, UnsafePointer<SamplerRegion>, UnsafePointer<Int32>, Range<Int>)? {
        let presetIndex = state.pointee.presetIndex
        guard bankSlots.current >= 0, presetIndex >= 0 else { return nil }
        let slot = banks + bankSlots.current
        guard let regions = slot.pointee.regions.baseAddress, let keyRegionStarts = slot.pointee.keyRegionStarts,
              let keyRegions = slot.pointee.keyRegions, presetIndex < slot.pointee.presets.count else { return nil }
        let keyEntry = presetIndex * MIDILimits.keyCount + Int(key)
        return (slot, regions, keyRegions, Int(keyRegionStarts[keyEntry]) ..< Int(keyRegionStarts[keyEntry + 1]))
    }

    /// The region of entry `candidate` of a key's table (`regionsOfKey`) when it answers a note of
    /// `velocity` on `channel` with its `noteCount` and `random` number, else nil: first the
    /// velocity range, which sits beside the region's index (the regions of the other layers are
    /// never read), then `SamplerRegion.answers`.
    @_noAllocation @_noLocks
    func answeringRegion(_ candidate: Int, regions: UnsafePointer<SamplerRegion>, keyRegions: UnsafePointer<Int32>, velocity: UInt8,
                         channel: UInt8, state: UnsafeMutablePointer<ChannelState>, noteCount: UInt32, random: Float)
        -> UnsafePointer<SamplerRegion>? {
        guard SampleBank.Layout.velocity(velocity, isIn: keyRegions[2 * candidate + 1]) else { return nil }
        let region = regions + Int(keyRegions[2 * candidate])
        guard region.pointee.answers(channel: channel, keyswitch: state.pointee.keyswitch, noteCount: noteCount, random: random,
                                     controllers: state.pointee.controllers) else { return nil }
        return region
    }

    /// Starts a voice of `region` (in the current bank, `slot`) for `key` on `channel`, cutting off
    /// the voices its class silences except those of serial `sparing` on: the note's own (a stereo
    /// hi-hat's two voices share a class, and the second must not cut the first, as in FluidSynth).
    @_noAllocation @_noLocks
    mutating func startVoice(region: UnsafePointer<SamplerRegion>, slot: UnsafeMutablePointer<BankSlot>, key: UInt8, velocity: UInt8,
                             channel: UInt8, state: UnsafeMutablePointer<ChannelState>, sparing firstSerial: UInt64,
                             attenuationOffsetCentibels: Float = 0) {
        guard let samples = slot.pointee.samples, let modulators = slot.pointee.modulators,
              var level = region.pointee.crossfade.attenuationCentibels(key: key, velocity: velocity) else { return }
        if region.pointee.velocityCurve >= 0, let curves = slot.pointee.curves {
            let gain = curves[Int(region.pointee.velocityCurve) * SampleBank.Layout.curveLength + Int(velocity)]
            guard gain > 0 else { return }
            level -= 10 * amplitudeToDecibels(gain)
        }
        // Last before the voice is taken: from here the note counts as a user of its sample.
        // A sample not wholly in memory is not read past what is written: a region with nothing
        // written stays silent, counted, rather than the audio thread waiting; a voice on a sample
        // whose head alone is in watches its frontier (`SamplerVoice.prepare`) and asks for the rest.
        let residency = startSampleVoice(region.pointee.sampleIndex, start: region.pointee.start, now: now,
                                         cells: slot.pointee.residentSamples, requests: slot.pointee.sampleRequests,
                                         pending: slot.pointee.pendingSampleRequests)
        guard residency.playable else {
            sampleUnderrunCount += 1
            return
        }
        if region.pointee.exclusiveClass != 0 { silenceExclusiveClass(region.pointee.exclusiveClass, channel: channel, sparing: firstSerial) }
        if region.pointee.notePolyphony != 0 || region.pointee.polyphony != 0 {
            makeRoom(for: region, channel: channel, key: key, sparing: firstSerial)
        }
        // A voice taken (free or stolen, and a stolen one's fade) changes who sounds.
        listIsStale = true
        let acquired = pool.acquire(sampleRate: sampleRate)
        voiceEnded(bankSlot: acquired.endedBankSlots.0)
        voiceEnded(bankSlot: acquired.endedBankSlots.1)
        sampleVoiceEnded(acquired.endedSampleCells.0)
        sampleVoiceEnded(acquired.endedSampleCells.1)
        let voice = acquired.voice
        // SFZ's `*_random`: draws of this note alone, in the fixed sequence (none for a region that
        // names none, so every other render keeps its draws).
        if region.pointee.drawsRandomly { level -= 10 * region.pointee.randomLouderDecibels * nextRandom() }
        voice.pointee.start(region: region, samples: samples, modulators: modulators, key: key, velocity: velocity,
                            channel: channel, state: state, engineRate: sampleRate,
                            attenuationOffsetCentibels: attenuationOffsetCentibels + level)
        if region.pointee.drawsRandomly {
            voice.pointee.pitchCents += Double(region.pointee.randomPitchCents * (2 * nextRandom() - 1))
            let frames = Double(region.pointee.randomOffsetFrames) * Double(nextRandom())
            voice.pointee.position = min(voice.pointee.position + Double(Int(frames)), Double(max(region.pointee.start, voice.pointee.end - 1)))
            voice.pointee.waitingFrames += Int32(min(Double(region.pointee.randomDelaySeconds) * Double(nextRandom()) * sampleRate, Double(Int32.max / 2)))
            voice.pointee.randomCutoffCents = region.pointee.randomCutoffCents * (2 * nextRandom() - 1)
            voice.pointee.cutoffCents += voice.pointee.randomCutoffCents
        }
        voice.pointee.sampleFrontier = residency.cells
        voice.pointee.bankSlot = bankSlots.current
        voice.pointee.isPercussion = state.pointee.isPercussion
        voice.pointee.noteOnFrame = now
        voice.pointee.startSerial = firstSerial
        voice.pointee.heldReleaseFrame = .max
        voice.pointee.isCaughtBySostenuto = false
        voice.pointee.isHeldBySostenuto = false
        banks[bankSlots.current].voiceCount += 1
        pool.refreshKey(voice - pool.voices)
    }

    /// What `channel` remembers of `key`.
    @_noAllocation @_noLocks
    func keyMemory(channel: UInt8, key: UInt8) -> UnsafeMutablePointer<KeyMemory> {
        keyMemory + Int(channel) * MIDILimits.keyCount + Int(key)
    }

    /// Whether a key of `channel` other than `key` is down (`KeyMemory.isDown`).
    @_noAllocation @_noLocks
    func anotherKeyIsDown(channel: UInt8, besides key: UInt8) -> Bool {
        let first = keyMemory + Int(channel) * MIDILimits.keyCount
        for other in 0..<MIDILimits.keyCount where other != Int(key) && first[other].isDown { return true }
        return false
    }

    /// The next note's random number in 0..<1 (xorshift64*, 24 bits: exactly representable).
    @_noAllocation @_noLocks
    mutating func nextRandom() -> Float {
        randomState ^= randomState >> 12
        randomState ^= randomState << 25
        randomState ^= randomState >> 27
        return Float((randomState &* 0x2545_F491_4F6C_DD1D) >> 40) / Float(1 << 24)
    }

    /// `key`'s release regions on `channel` start, if its note-on left any waiting: those of
    /// `trigger=release_key` with `keyRelease`, else those of `trigger=release`; at the note-on's
    /// velocity, count and random number, quieter by their decay over the time the key was held.
    @_noAllocation @_noLocks
    mutating func startReleaseRegions(channel: UInt8, key: UInt8, keyRelease: Bool = false) {
        let memory = keyMemory(channel: channel, key: key)
        if keyRelease {
            guard memory.pointee.releaseKeyPending else { return }
            memory.pointee.releaseKeyPending = false
        } else {
            guard memory.pointee.releasePending else { return }
            memory.pointee.releasePending = false
        }
        let state = channels + Int(channel)
        guard let (slot, regions, keyRegions, candidates) = regionsOfKey(key, state: state) else { return }
        let velocity = memory.pointee.velocity
        let heldSeconds = Float(Double(now &- memory.pointee.noteOnFrame) / sampleRate)
        let firstSerial = pool.nextSerial
        for candidate in candidates {
            guard let region = answeringRegion(candidate, regions: regions, keyRegions: keyRegions, velocity: velocity, channel: channel,
                                               state: state, noteCount: memory.pointee.noteOnCount &- 1, random: memory.pointee.random)
            else { continue }
            let trigger = region.pointee.trigger
            var isKeyRelease = false
            if case .releaseKey = trigger { isKeyRelease = true }
            guard trigger.isRelease, keyRelease == isKeyRelease else { continue }
            startVoice(region: region, slot: slot, key: key, velocity: velocity, channel: channel, state: state, sparing: firstSerial,
                       attenuationOffsetCentibels: region.pointee.releaseDecayCentibelsPerSecond * heldSeconds)
        }
    }

    /// The release regions of `channel`'s keys that are up and no pedal holds start: the sustain
    /// or sostenuto pedal came up.
    @_noAllocation @_noLocks
    mutating func startWaitingReleaseRegions(channel: UInt8) {
        guard !channels[Int(channel)].sustainPedal else { return }
        // Keys the sostenuto pedal still holds wait for it.
        var heldBySostenuto: (UInt64, UInt64) = (0, 0)
        for index in pool.activeIndices where pool.voices[index].isActive && pool.voices[index].channel == channel
            && pool.voices[index].isHeldBySostenuto {
            let key = pool.voices[index].key
            if key < 64 { heldBySostenuto.0 |= 1 << UInt64(key) } else { heldBySostenuto.1 |= 1 << UInt64(key & 63) }
        }
        let first = keyMemory + Int(channel) * MIDILimits.keyCount
        for key in 0..<MIDILimits.keyCount where first[key].releasePending && !first[key].isDown {
            let held = key < 64 ? heldBySostenuto.0 & (1 << UInt64(key)) : heldBySostenuto.1 & (1 << UInt64(key & 63))
            if held == 0 { startReleaseRegions(channel: channel, key: UInt8(key)) }
        }
    }

    @_noAllocation @_noLocks
    mutating func noteOff(channel: UInt8, key: UInt8) {
        guard Int(channel) < MIDILimits.channelCount else { return }
        let state = channels + Int(channel)
        var heldBySostenuto = false
        var sounding = pool.firstSoundingVoice(channel: channel, key: key)
        while sounding < pool.capacity {
            let next = pool.nextSoundingVoice(after: sounding)
            let voice = pool.voices + sounding
            if state.pointee.sostenutoPedal && voice.pointee.isCaughtBySostenuto {
                voice.pointee.isHeldBySostenuto = true
                heldBySostenuto = true
            } else if state.pointee.sustainPedal {
                voice.pointee.isHeldByPedal = true
            } else {
                releaseKey(sounding)
            }
            sounding = next
        }
        guard Int(key) < MIDILimits.keyCount else { return }
        keyMemory(channel: channel, key: key).pointee.isDown = false
        startReleaseRegions(channel: channel, key: key, keyRelease: true)
        // A pedal that holds the note holds its release regions too, until it comes up.
        if !state.pointee.sustainPedal && !heldBySostenuto { startReleaseRegions(channel: channel, key: key) }
    }

    /// Releases voice `index` because its key, or the pedal holding it, went up: at once, or, when
    /// it has sounded less than the minimum note length, at the frame it reaches it. A note-off at
    /// the note-on's own frame would otherwise release a voice whose envelope has not risen yet,
    /// and the note would never be heard. (FluidSynth checks its pending note-offs once per
    /// 64-frame block; here the release falls on its exact frame.)
    @_noAllocation @_noLocks
    mutating func releaseKey(_ index: Int) {
        // A one-shot, or a region its key's release started, plays to its end whatever the key
        // or the pedals do.
        if let region = pool.voices[index].region {
            if case .oneShot = region.pointee.loopMode { return }
            if region.pointee.trigger.isRelease { return }
        }
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
    mutating func controlChange(channel: UInt8, controller: UInt8, value: UInt8, triggers: Bool = true) {
        guard Int(channel) < MIDILimits.channelCount else { return }
        let state = channels + Int(channel)
        let value = min(value, 127)
        let previous = state.pointee.controllers[Int(controller & 0x7F)]
        state.pointee.setController(controller, value)
        if triggers, value != previous { startControllerTriggeredRegions(channel: channel, controller: controller & 0x7F, value: value) }
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

    /// Starts the channel's preset's regions that `controller` moving to `value` triggers (SFZ
    /// `on_loccN`/`on_hiccN`, as sfizz plays them: a value in the range that differs from the
    /// last), at their recorded pitch and full level, after the same checks a note's regions pass
    /// but the key's and the velocity's.
    @_noAllocation @_noLocks
    mutating func startControllerTriggeredRegions(channel: UInt8, controller: UInt8, value: UInt8) {
        let state = channels + Int(channel)
        let presetIndex = state.pointee.presetIndex
        guard bankSlots.current >= 0, presetIndex >= 0 else { return }
        let slot = banks + bankSlots.current
        let words = slot.pointee.triggeringControllers
        let bit = controller < 64 ? words.0 >> UInt64(controller) : words.1 >> UInt64(controller - 64)
        guard bit & 1 != 0, let regions = slot.pointee.regions.baseAddress, presetIndex < slot.pointee.presets.count else { return }
        let preset = slot.pointee.presets[presetIndex]
        let random = nextRandom()
        let firstSerial = pool.nextSerial
        for index in preset.firstRegion ..< preset.firstRegion + preset.regionCount {
            let region = regions + index
            let trigger = region.pointee.controllerTrigger
            guard trigger.controller == controller, value >= trigger.low, value <= trigger.high,
                  region.pointee.answers(channel: channel, keyswitch: state.pointee.keyswitch, noteCount: 0, random: random,
                                         controllers: state.pointee.controllers) else { continue }
            let key = UInt8(min(max(region.pointee.rootKey + 0.5, 0), 127))
            startVoice(region: region, slot: slot, key: key, velocity: 127, channel: channel, state: state, sparing: firstSerial)
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
        // Notes ended together are not released one by one: no release regions.
        for key in 0..<MIDILimits.keyCount { keyMemory[Int(channel) * MIDILimits.keyCount + key].forgetReleases() }
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
        // Silenced notes leave no release regions to start when their keys come up.
        for index in 0..<(MIDILimits.channelCount * MIDILimits.keyCount) where channel == nil || index / MIDILimits.keyCount == Int(channel!) {
            keyMemory[index].forgetReleases()
        }
    }

    // MARK: Rendering

    /// Begins rendering every listed voice for a segment, and the drum player's as `work.drums`
    /// describes them: `quantumCount` whole quanta when above 1, else `frameCount` frames of one.
    /// The voices are split into work items (`VoiceWorkItems`) that the workers, when there are
    /// any, render beside this thread; each quantum's item mixes are summed in a tree whose shape
    /// follows from the item count alone, so the sum is the same for any number of threads. A
    /// segment worth sharing is only handed out here, and the caller may do other work (mix the
    /// segment before) until `finishVoices`; a small one is rendered at once. The items render
    /// into the set of mixes the last segment did not use.
    ///
    /// The list of voices is rebuilt only when `listIsStale`: after a note takes a voice (started,
    /// or stolen with a fade). Until the next note a voice that ends stays listed and adds nothing.
    /// So the list, and with it the split and the order of summation, depends only on the song,
    /// never on how quanta are grouped into segments: a stretch of quanta rendered as one segment
    /// is the same bits as its quanta rendered one by one.
    /// - Returns: whether the workers were handed the segment (then `finishVoices` renders what
    ///   they have not claimed and waits for them).
    @_noAllocation @_noLocks
    mutating func beginVoices(frameCount: Int, quantumCount: Int) -> Bool {
        // Levels move and voices end: the pool's steal scores are rebuilt at the next note-on.
        pool.keysValid = false
        if listIsStale { listVoices() }
        let sounding = listedSoundingCount
        renderedVoiceCount = sounding
        work.pointee.mixSet = (work.pointee.mixSet + 1) % VoiceWorkItems.mixSetCount
        work.pointee.voiceCount = listedCount
        work.pointee.frameCount = frameCount
        work.pointee.quantumCount = quantumCount
        let drumPlayheads = work.pointee.drums.soundingPlayheadCount()
        guard sounding > 0 || drumPlayheads > 0 else {
            for item in 0..<work.pointee.drums.itemCount { work.pointee.drums.activeCount(ofItem: item).pointee = 0 }
            segmentIsSilent = true
            return false
        }
        segmentIsSilent = false
        let itemCount = work.pointee.itemCount
        // A short segment (commands split a quantum) is not worth handing out: its items take less
        // than the handing out. A drum playhead, a scalar copy with a gain, costs about what a voice
        // in a lane of eight does, but its items are more often cut short by hits: counted at half
        // a voice, a roll of 4 hits a period on 150 voices stays on one thread, where sharing it lost
        // (`staccato-bench drums --threads 1,2`).
        let voiceFrames = (sounding + drumPlayheads / 2) * frameCount * quantumCount
        if itemCount > 1, workers != nil, voiceFrames >= VoiceWorkers.smallestSharedWork {
            workers!.publish()
            return true
        }
        for item in 0..<itemCount { work.pointee.render(item: item, with: &workspace) }
        return false
    }

    /// Ends the segment `beginVoices` began: renders the items the workers have not claimed, waits
    /// for those they hold (when it was `shared`), and counts the voices that ended in it.
    /// - Returns: where its mixes are, for `addMixes`.
    @_noAllocation @_noLocks
    mutating func finishVoices(shared: Bool) -> VoiceSegmentMixes {
        guard !segmentIsSilent else {
            return work.pointee.silentMixes
        }
        if shared { workers!.finish(with: &workspace) }
        let mixes = work.pointee.renderedMixes
        // The voices that ended in the segment: their banks have one user fewer. Only the items
        // that counted an ended voice are looked through.
        let voices = work.pointee.voices
        for item in 0..<work.pointee.samplerItemCount where work.pointee.report(ofItem: item).pointee.endedVoiceCount > 0 {
            for index in work.pointee.voiceRange(ofItem: item) where listedSounding[index] && !voices[index].pointee.isActive {
                listedSounding[index] = false
                listedSoundingCount -= 1
                let voice = voices[index]
                voiceEnded(bankSlot: voice.pointee.bankSlot)
                sampleVoiceEnded(voice.pointee.sampleFrontier)
                if voice < pool.voices + pool.capacity && voice >= pool.voices { activeVoiceCount -= 1 }
            }
        }
        return mixes
    }

    /// Adds quantum `quantum` of a rendered segment's voices (`finishVoices`) into `left`/`right`,
    /// and their sends into the mono `reverb` and `chorus` buses.
    @_noAllocation @_noLocks
    func addMixes(_ mixes: VoiceSegmentMixes, quantum: Int, left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>,
                  reverb: UnsafeMutablePointer<Float>, chorus: UnsafeMutablePointer<Float>) {
        work.pointee.addMixes(mixes, quantum: quantum, left: left, right: right, reverb: reverb, chorus: chorus)
    }

    /// Lists the sounding voices, the pool's in pool order and then the fading ones.
    @_noAllocation @_noLocks
    mutating func listVoices() {
        listIsStale = false
        var listed = 0
        var activeBound = 0
        let voices = work.pointee.voices
        // An entry is written only when it changes: a worker reads the list, and a line rewritten
        // with the same values would still be taken from its cache.
        for index in pool.activeIndices where pool.voices[index].isActive {
            activeBound = index + 1
            if voices[listed] != pool.voices + index { voices[listed] = pool.voices + index }
            listedSounding[listed] = true
            listed += 1
        }
        activeVoiceCount = listed
        // Taken where voices are added, at a note's frame: after a segment the count would miss a
        // voice that ended within it, and how long a segment runs depends on the block size.
        peakVoiceCount = max(peakVoiceCount, activeVoiceCount)
        if pool.fadingCount > 0 {
            for index in 0..<pool.fadeCapacity where pool.fading[index].isActive {
                if voices[listed] != pool.fading + index { voices[listed] = pool.fading + index }
                listedSounding[listed] = true
                listed += 1
            }
            pool.fadingCount = listed - activeVoiceCount
        }
        pool.activeBound = activeBound
        listedCount = listed
        listedSoundingCount = listed
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
        startWaitingReleaseRegions(channel: channel)
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
        startWaitingReleaseRegions(channel: channel)
    }

    @_noAllocation @_noLocks
    mutating func silenceExclusiveClass(_ exclusiveClass: UInt16, channel: UInt8, sparing firstSerial: UInt64) {
        for index in pool.activeIndices where pool.voices[index].isActive && pool.voices[index].channel == channel
            && pool.voices[index].offBy == exclusiveClass && pool.voices[index].noteSerial < firstSerial {
            if pool.voices[index].cutOffByRelease {
                pool.release(index)
            } else if let region = pool.voices[index].region, region.pointee.offSeconds > 0 {
                pool.fadeOut(index, sampleRate: sampleRate, seconds: Double(region.pointee.offSeconds))
            } else {
                pool.fadeOut(index, sampleRate: sampleRate)
            }
        }
    }

    /// Ends the oldest notes of `region`'s polyphony group on `channel` (its key's alone for
    /// `notePolyphony`) while as many sound as it allows, as sfizz steals within a group: a note is
    /// the voices one start made (`startSerial`), counted once; voices already fading out do not
    /// count; the start under way (serial `firstSerial` on) is spared.
    @_noAllocation @_noLocks
    mutating func makeRoom(for region: UnsafePointer<SamplerRegion>, channel: UInt8, key: UInt8, sparing firstSerial: UInt64) {
        let group = region.pointee.exclusiveClass
        let noteLimit = Int(region.pointee.notePolyphony), groupLimit = Int(region.pointee.polyphony)
        while true {
            var notes = 0, groupNotes = 0
            var oldestNote = UInt64.max, oldestGroup = UInt64.max
            for index in pool.activeIndices {
                let voice = pool.voices + index
                guard voice.pointee.isActive, voice.pointee.channel == channel, voice.pointee.fadeStep >= 0,
                      voice.pointee.startSerial < firstSerial, let other = voice.pointee.region,
                      group != 0 ? other.pointee.exclusiveClass == group : other == region else { continue }
                let counted = !other.pointee.isStereoCompanion
                if counted { groupNotes += 1 }
                oldestGroup = min(oldestGroup, voice.pointee.startSerial)
                if voice.pointee.key == key {
                    if counted { notes += 1 }
                    oldestNote = min(oldestNote, voice.pointee.startSerial)
                }
            }
            let ending: UInt64
            if noteLimit > 0 && notes >= noteLimit { ending = oldestNote }
            else if groupLimit > 0 && groupNotes >= groupLimit { ending = oldestGroup }
            else { return }
            for index in pool.activeIndices where pool.voices[index].isActive && pool.voices[index].startSerial == ending {
                pool.fadeOut(index, sampleRate: sampleRate)
            }
        }
    }

    /// The level the percussion channel's volume and expression give (CC7, CC11), through SF2's
    /// default modulators for them, as the sampler's own voices take it: what the drum player
    /// scales its hits by. Evaluated again only when the channel's controllers have moved.
    @_noAllocation @_noLocks
    mutating func percussionChannelGain() -> Float {
        let channel = channels + Int(GeneralMIDI.percussionChannel)
        guard channel.pointee.controllerSerial != percussionGainSerial else { return percussionGain }
        percussionGainSerial = channel.pointee.controllerSerial
        let sources = channel.pointee.modulatorSources(key: 60, velocity: 127, pressedKey: 60)
        let centibels = SamplerModulator.channelVolume.value(sources) + SamplerModulator.channelExpression.value(sources)
        percussionGain = centibelsToAmplitude(min(max(centibels, 0), 1_440))
        return percussionGain
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
        if state.pointee.presetIndex >= 0 {
            state.pointee.keyswitch = banks[bankSlots.current].presets[state.pointee.presetIndex].defaultKeyswitch
        }
    }
}
